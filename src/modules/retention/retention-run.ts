import { and, eq, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { companies, retentionPolicies } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { notFound } from '../../kernel/errors.js';
import { selectRows } from '../../db/sql-rows.js';
import { recordAudit } from '../audit/record-audit.js';
import { assertAdministrator } from './assert-administrator.js';
import { idList, pseudonymiseReports } from './pseudonymise.js';
import { identityNeedles, keyIdentities, pseudonymFor } from './researcher-identity.js';
import type { RetentionRun } from './retention.schemas.js';
import { type DueReport, planRetention, type RetentionPlan } from './retention-plan.js';
import { policyRow } from './retention-policy.js';

/** The text a removed body reads as (reports closed as spam or not applicable, docs/retention.md). */
export const REMOVED_TEXT = '[removed under the retention policy]';

export type RunOptions = { now?: Date | undefined };

/** Credit names on the working copies of the advisories of these reports: they name the researcher too. */
export async function creditNames(tx: Executor, companyId: string, reportIds: string[]): Promise<string[]> {
  const rows = await selectRows<{ name: string | null }>(
    tx,
    sql`select a.elem->>'name' as name from advisories ad, jsonb_array_elements(ad.acknowledgments) as a(elem)
      where ad.company_id = ${companyId} and ad.report_id in ${idList(reportIds)}`,
  );
  return rows.flatMap((r) => (r.name ? [r.name] : []));
}

async function pseudonymiseDue(tx: Executor, companyId: string, salt: string, due: DueReport[], at: Date): Promise<void> {
  for (const r of due) {
    const needles = identityNeedles([r.contactEmail, ...(await keyIdentities(r.pgpKey)), ...(await creditNames(tx, companyId, [r.id]))]);
    await pseudonymiseReports(tx, {
      companyId,
      reportIds: [r.id],
      pseudonym: pseudonymFor(salt, r.contactEmail, r.id),
      needles,
      endStatusLink: true,
      at,
    });
  }
}

async function apply(tx: Executor, companyId: string, salt: string, plan: RetentionPlan, at: Date): Promise<void> {
  await pseudonymiseDue(tx, companyId, salt, plan.reporterData, at);
  if (plan.rejectedBodies.length > 0) {
    const ids = idList(plan.rejectedBodies.map((r) => r.id));
    await pseudonymiseDue(
      tx,
      companyId,
      salt,
      plan.rejectedBodies.filter((r) => !plan.reporterData.some((d) => d.id === r.id)),
      at,
    );
    await tx.execute(sql`update reports set description = ${REMOVED_TEXT}, steps_to_reproduce = null, impact = null,
        exploitation_evidence = null, body_removed_at = ${at} where company_id = ${companyId} and id in ${ids}`);
    await tx.execute(sql`update report_messages set body = ${REMOVED_TEXT} where company_id = ${companyId} and report_id in ${ids}`);
    // Team notes about a rejected report go with its text: they quote it, and may quote who sent it.
    await tx.execute(sql`update report_notes set body = ${REMOVED_TEXT} where company_id = ${companyId} and report_id in ${ids}`);
    await tx.execute(sql`delete from triage_suggestions where company_id = ${companyId} and report_id in ${ids}`);
  }
  const cut = plan.access.cutoff;
  if (cut) {
    await tx.execute(sql`delete from sessions where company_id = ${companyId} and expires_at < ${cut}`);
    await tx.execute(sql`update audit_log set ip = null, user_agent = null where company_id = ${companyId} and at < ${cut}
      and (ip is not null or user_agent is not null)`);
  }
}

async function runOne(db: Db, ctx: Context, companyId: string, applyIt: boolean, now: Date): Promise<RetentionRun> {
  return db.transaction(async (tx) => {
    await assertAdministrator(tx, ctx, companyId);
    const policy = await policyRow(tx, companyId);
    const plan = await planRetention(tx, companyId, policy, now);
    const result: RetentionRun = { companyId, at: now.toISOString(), applied: applyIt, rules: plan.outcomes };
    if (!applyIt) return result;
    await apply(tx, companyId, policy.pseudonymSalt, plan, now);
    await tx.update(retentionPolicies).set({ lastRunAt: now }).where(eq(retentionPolicies.companyId, companyId));
    // Counts and dates only: never a report's text, an address or a name.
    const counts = Object.fromEntries(plan.outcomes.map((o) => [o.rule, { count: o.count, held: o.held, keptByCraFloor: o.keptByCraFloor }]));
    await recordAudit(tx, ctx, { companyId, action: 'retention.run', targetType: 'company', targetId: companyId, details: counts, at: now });
    return result;
  });
}

/** What the company's retention rules would do now: counts and the oldest due item per rule, nothing changed. */
export const previewRetention = (db: Db, ctx: Context, companyId: string, o: RunOptions = {}): Promise<RetentionRun> =>
  runOne(db, ctx, companyId, false, o.now ?? new Date());

/** Applies the company's retention rules now, in one transaction with its audit row (counts only). */
export const runRetention = (db: Db, ctx: Context, companyId: string, o: RunOptions = {}): Promise<RetentionRun> =>
  runOne(db, ctx, companyId, true, o.now ?? new Date());

/**
 * The operator's and the daily job's pass (`cradle retention preview|run [--slug s]`): one company by
 * slug, or every company, each in its own transaction so one failure stops no other.
 */
export async function retentionForCompanies(
  db: Db,
  ctx: Context,
  o: RunOptions & {
    slug?: string | undefined;
    apply: boolean;
    /** Only companies whose last run is at least this old (the daily job). */
    dueAfterMs?: number;
    onError?: (companyId: string, err: unknown) => void;
  },
): Promise<RetentionRun[]> {
  const now = o.now ?? new Date();
  const due =
    o.dueAfterMs === undefined
      ? sql`true`
      : sql`(${retentionPolicies.lastRunAt} is null or ${retentionPolicies.lastRunAt} < ${new Date(now.getTime() - o.dueAfterMs)})`;
  const rows = await db
    .select({ id: companies.id })
    .from(companies)
    .leftJoin(retentionPolicies, eq(retentionPolicies.companyId, companies.id))
    .where(and(o.slug ? eq(companies.slug, o.slug) : sql`true`, due))
    .orderBy(companies.createdAt);
  if (o.slug && rows.length === 0) throw notFound(`company "${o.slug}"`);
  const out: RetentionRun[] = [];
  for (const { id } of rows) {
    try {
      out.push(await runOne(db, ctx, id, o.apply, now));
    } catch (err) {
      if (!o.onError || o.slug) throw err;
      o.onError(id, err);
    }
  }
  return out;
}
