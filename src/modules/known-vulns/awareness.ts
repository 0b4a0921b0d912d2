import { sql } from 'drizzle-orm';
import { kevAwareness } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import { z } from 'zod';
import type { Db, Executor } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { actorName, type Context } from '../../kernel/context.js';
import { conflict, notFound, validation } from '../../kernel/errors.js';
import { isUuid } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { param } from '../../kernel/evidence-store.js';
import { recordAudit } from '../audit/record-audit.js';
import { getCompanyById } from '../companies/get-company.js';
import { fileValidatedReport } from '../reports/file-report.js';
import type { ReportSource } from '../reports/reports.schemas.js';
import { applyReportUpdate } from '../reports/update-report.js';
import { iso } from './known-vulns.rows.js';
import { type Awareness, ConfirmAwarenessInput, DismissAwarenessInput } from './awareness.schemas.js';

/**
 * Opens a pending awareness decision for every open match in KEV of a product on the market (and
 * not archived) that has none yet (one per product and flaw; a decided one is never reopened). A product counts as on
 * the market unless its CRA facts date its placement in the future: missing a prompt would cost a
 * 24-hour deadline, an extra prompt costs a click.
 */
export async function openAwareness(tx: Executor, now: Date, scope: { productIds: string[] } | 'all'): Promise<number> {
  const where = scope === 'all' ? sql`true` : sql`m.product_id = any(${param(scope.productIds)}::uuid[])`;
  const rows = await selectRows<{ id: string }>(
    tx,
    sql`
    insert into ${kevAwareness} (${sqlColumns(kevAwareness, ['id', 'companyId', 'productId', 'vulnKey', 'cveIds', 'openedAt', 'state'])})
    select gen_random_uuid(), m.company_id, m.product_id, m.vuln_key, array(select x from unnest(m.vuln_ids) x where x like 'CVE-%' order by x), ${now.toISOString()}::timestamptz, 'pending'
    from (select distinct on (product_id, vuln_key) * from vuln_matches m where ${where} and m.in_kev and m.resolved_at is null order by product_id, vuln_key) m
    join products p on p.id = m.product_id
    left join product_cra_facts f on f.product_id = m.product_id
    -- An archived product is kept for the record, not on offer: no prompt (issue 20).
    where p.archived_at is null and (f.placed_on_market_at is null or f.placed_on_market_at <= ${now.toISOString()}::timestamptz)
    on conflict (product_id, vuln_key) do nothing
    returning id`,
  );
  return rows.length;
}

type Row = {
  id: string;
  identifier: string;
  product_name: string;
  vuln_key: string;
  cve_ids: string[];
  opened_at: string | Date;
  state: Awareness['state'];
  decided_at: string | Date | null;
  decided_by: string | null;
  reason: string | null;
  report_id: string | null;
  components: string[] | null;
  kev_added: string | Date | null;
};
const toAwareness = (r: Row): Awareness => ({
  id: r.id,
  productIdentifier: r.identifier,
  vulnerability: r.vuln_key,
  cves: r.cve_ids,
  openedAt: iso(r.opened_at),
  state: r.state,
  kevDateAdded: r.kev_added === null ? null : iso(r.kev_added).slice(0, 10),
  components: r.components ?? [],
  decidedAt: r.decided_at === null ? null : iso(r.decided_at),
  decidedBy: r.decided_by,
  reason: r.reason,
  reportId: r.report_id,
});

async function select(db: Executor, companyId: string, where: ReturnType<typeof sql>): Promise<Row[]> {
  return selectRows<Row>(
    db,
    sql`
    select a.id, p.identifier, p.name as product_name, a.vuln_key, a.cve_ids, a.opened_at, a.state, a.decided_at, a.decided_by, a.reason, a.report_id,
      (select array_agg(distinct m.component_name || ' ' || m.component_version) from vuln_matches m where m.product_id = a.product_id and m.vuln_key = a.vuln_key and m.resolved_at is null) as components,
      (select min(k.date_added) from vulndb_kev k where k.cve_id = any(a.cve_ids)) as kev_added
    from kev_awareness a join products p on p.id = a.product_id
    where a.company_id = ${companyId}::uuid and ${where}
    order by a.opened_at, p.identifier, a.vuln_key`,
  );
}

export const AwarenessFilter = z.object({ state: z.enum(['pending', 'confirmed', 'dismissed', 'all']).default('pending') }).strict();

/** The company's awareness decisions, oldest first (pending by default). */
export async function listAwareness(db: Executor, companyId: string, filter: unknown = {}): Promise<Awareness[]> {
  const f = parseInput(AwarenessFilter, filter);
  return (await select(db, companyId, f.state === 'all' ? sql`true` : sql`a.state = ${f.state}`)).map(toAwareness);
}

/**
 * The confirmed awareness decision that opened a report, or null for a report somebody filed: a
 * report Cradle opened itself is the company's own record, not a reporter's submission.
 */
export async function awarenessOfReport(db: Executor, companyId: string, reportId: string): Promise<Awareness | null> {
  if (!isUuid(reportId)) return null;
  const [row] = await select(db, companyId, sql`a.report_id = ${reportId}::uuid`);
  return row ? toAwareness(row) : null;
}

/** One awareness decision of the company, or null (another company's id included). */
export async function getAwareness(db: Executor, companyId: string, id: string): Promise<Awareness | null> {
  if (!isUuid(id)) return null;
  const [row] = await select(db, companyId, sql`a.id = ${id}::uuid`);
  return row ? toAwareness(row) : null;
}

/** `awareAt` as given, or now; more than five minutes ahead is refused (a clock cannot start in the future). */
export function awarenessTime(awareAt: string | undefined, now: Date): Date {
  const at = awareAt ? new Date(awareAt) : now;
  if (at.getTime() > now.getTime() + 5 * 60_000)
    throw validation('awareAt must not be in the future', [{ path: 'awareAt', message: 'must not be in the future' }]);
  return at;
}

/**
 * Which of these reports Cradle opened itself (a confirmed awareness decision names them), for the
 * pages and the CSV download that list reports: one query for a whole page of them.
 */
export async function reportsOpenedByCradle(db: Executor, companyId: string, reportIds: readonly string[]): Promise<Set<string>> {
  const ids = reportIds.filter(isUuid);
  if (ids.length === 0) return new Set();
  const rows = await selectRows<{ report_id: string }>(
    db,
    sql`select report_id from kev_awareness where company_id = ${companyId}::uuid
      and report_id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)`,
  );
  return new Set(rows.map((r) => r.report_id));
}

async function pending(tx: Executor, companyId: string, id: string): Promise<Row> {
  if (!isUuid(id)) throw notFound('awareness decision');
  const [row] = await select(tx, companyId, sql`a.id = ${id}::uuid`);
  if (!row) throw notFound('awareness decision');
  if (row.state !== 'pending') throw conflict(`the awareness decision was already ${row.state}`);
  return row;
}

/**
 * Confirms awareness: in one transaction, opens the Article 14 case as a report (actively
 * exploited, aware at the given time, so its clocks run from then) and records the decision.
 */
export async function confirmAwareness(db: Db, ctx: Context, companyId: string, id: string, input: unknown, source: ReportSource): Promise<Awareness> {
  if (!isUuid(id)) throw notFound('awareness decision');
  const c = parseInput(ConfirmAwarenessInput, input);
  const now = new Date();
  const awareAt = awarenessTime(c.awareAt, now);
  const company = await getCompanyById(db, companyId);
  await db.transaction(async (tx) => {
    // Row lock: two confirmations of one decision cannot both open a case.
    await tx.execute(sql`select id from kev_awareness where id = ${id}::uuid and company_id = ${companyId}::uuid for update`);
    const row = await pending(tx, companyId, id);
    const cves = row.cve_ids.join(', ');
    const description = `Actively exploited vulnerability ${row.vuln_key}${cves && cves !== row.vuln_key ? ` (${cves})` : ''}, listed in the CISA Known Exploited Vulnerabilities catalog${row.kev_added ? ` since ${iso(row.kev_added).slice(0, 10)}` : ''}, in ${(row.components ?? []).join(', ') || 'a component'} of ${row.product_name}. Opened from Cradle's known-vulnerability matching when the team confirmed awareness.${c.note ? `\n\n${c.note}` : ''}`;
    const filed = await fileValidatedReport(tx, ctx, company, { description, productName: row.product_name }, source);
    const reportId = filed.report.submissionId;
    await applyReportUpdate(tx, ctx, companyId, reportId, { activelyExploited: true, awareAt: awareAt.toISOString() });
    await tx.execute(
      sql`update kev_awareness set state = 'confirmed', decided_at = ${now.toISOString()}::timestamptz, decided_by = ${actorName(ctx)}, reason = ${c.note ?? null}, report_id = ${reportId}::uuid where id = ${row.id}::uuid`,
    );
    await recordAudit(tx, ctx, {
      companyId,
      action: 'knownVulnerabilities.awareness.confirm',
      targetType: 'kev_awareness',
      targetId: row.id,
      details: { vulnerability: row.vuln_key, product: row.identifier, reportId, awareAt: awareAt.toISOString() },
      at: now,
    });
  });
  const [after] = await select(db, companyId, sql`a.id = ${id}::uuid`);
  return toAwareness(after!);
}

/** Dismisses an awareness decision with the reason (kept, audited). */
export async function dismissAwareness(db: Db, ctx: Context, companyId: string, id: string, input: unknown): Promise<Awareness> {
  const d = parseInput(DismissAwarenessInput, input);
  const now = new Date();
  await db.transaction(async (tx) => {
    const row = await pending(tx, companyId, id);
    const updated = await selectRows<{ id: string }>(
      tx,
      sql`
      update kev_awareness set state = 'dismissed', decided_at = ${now.toISOString()}::timestamptz, decided_by = ${actorName(ctx)}, reason = ${d.reason}
      where id = ${row.id}::uuid and state = 'pending' returning id`,
    );
    if (updated.length === 0) throw conflict('the awareness decision was decided meanwhile');
    await recordAudit(tx, ctx, {
      companyId,
      action: 'knownVulnerabilities.awareness.dismiss',
      targetType: 'kev_awareness',
      targetId: row.id,
      details: { vulnerability: row.vuln_key, product: row.identifier },
      at: now,
    });
  });
  const [after] = await select(db, companyId, sql`a.id = ${id}::uuid`);
  return toAwareness(after!);
}
