import { sql, type SQL } from 'drizzle-orm';
import { vulnDecisions } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Db, Executor } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { actorName, type Context } from '../../kernel/context.js';
import { notFound } from '../../kernel/errors.js';
import { param, pgTextArray } from '../../kernel/evidence-store.js';
import { isUuid, newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getProductByIdentifier } from '../products/get-product.js';
import { DecideAcrossInput, DecideInput, type Decision as DecisionRecord, type KnownVuln, type KnownVulnDetail } from './known-vulns.schemas.js';
import { namesVulnerability } from './known-vulns.rows.js';
import { selectKnownVulns } from './list-known-vulns.js';

type Decision = { state: string; justification?: string | undefined; response?: string[] | undefined; detail: string };
type Recorded = DecisionRecord;

/**
 * Records one decision on the matches `where` selects (within the company), with a history row per
 * match and one audit row, in one transaction. Answers the matches as they now stand.
 */
async function applyDecision(db: Db, ctx: Context, companyId: string, where: SQL, d: Decision, audit: Record<string, unknown>): Promise<KnownVuln[]> {
  const ids = await db.transaction(async (tx) => {
    const now = new Date();
    const actor = actorName(ctx);
    const rows = await selectRows<{ id: string }>(
      tx,
      sql`
      update vuln_matches m set analysis_state = ${d.state}, analysis_justification = ${d.justification ?? null},
        analysis_response = ${pgTextArray(d.response ?? [])}::text[], analysis_detail = ${d.detail}, decided_at = ${now.toISOString()}::timestamptz, decided_by = ${actor}
      where m.company_id = ${companyId}::uuid and ${where}
      returning m.id`,
    );
    if (rows.length === 0) return [];
    const matchIds = rows.map((r) => r.id);
    await tx.execute(sql`
      insert into ${vulnDecisions} (${sqlColumns(vulnDecisions, ['id', 'companyId', 'matchId', 'state', 'justification', 'response', 'detail', 'actor', 'decidedAt'])})
      select t.id, ${companyId}::uuid, t.match_id, ${d.state}, ${d.justification ?? null}, ${pgTextArray(d.response ?? [])}::text[], ${d.detail}, ${actor}, ${now.toISOString()}::timestamptz
      from unnest(${param(matchIds.map(() => newId()))}::uuid[], ${param(matchIds)}::uuid[]) as t(id, match_id)`);
    await recordAudit(tx, ctx, {
      companyId,
      action: 'knownVulnerabilities.decide',
      targetType: 'known_vulnerability',
      ...(matchIds.length === 1 ? { targetId: matchIds[0]! } : {}),
      // The reason is the team's own text about a public advisory, not report text; kept short here.
      details: {
        ...audit,
        state: d.state,
        justification: d.justification ?? null,
        response: d.response ?? [],
        matches: matchIds.length,
        matchIds: matchIds.slice(0, 100),
      },
      at: now,
    });
    return matchIds;
  });
  if (ids.length === 0) return [];
  return selectKnownVulns(db, sql`m.company_id = ${companyId}::uuid and m.id = any(${param(ids)}::uuid[])`);
}

/** Records a decision on one match (`triage:write`). Another company's id is not found. */
export async function decideKnownVuln(db: Db, ctx: Context, companyId: string, matchId: string, input: unknown): Promise<KnownVuln> {
  const d = parseInput(DecideInput, input);
  if (!isUuid(matchId)) throw notFound('known vulnerability');
  const [m] = await applyDecision(db, ctx, companyId, sql`m.id = ${matchId}::uuid`, d, {});
  if (!m) throw notFound('known vulnerability');
  return m;
}

/**
 * Records one decision for a flaw on every open match naming it, in one product or in all of them
 * at once (the same vulnerability need not be re-triaged per product). Nothing matched: not found.
 */
export async function decideAcrossProducts(db: Db, ctx: Context, companyId: string, input: unknown): Promise<{ updated: number; items: KnownVuln[] }> {
  const d = parseInput(DecideAcrossInput, input);
  const scope: SQL[] = [namesVulnerability(d.vulnerability), sql`m.resolved_at is null`];
  if (d.product !== undefined) scope.push(sql`m.product_id = ${(await getProductByIdentifier(db, companyId, d.product)).id}::uuid`);
  const items = await applyDecision(db, ctx, companyId, sql.join(scope, sql` and `), d, { vulnerability: d.vulnerability, product: d.product ?? null });
  if (items.length === 0) throw notFound(`open match of ${d.vulnerability}`);
  return { updated: items.length, items };
}

/** One match with its decision history (`read`). */
export async function getKnownVuln(db: Executor, companyId: string, matchId: string): Promise<KnownVulnDetail> {
  if (!isUuid(matchId)) throw notFound('known vulnerability');
  const [m] = await selectKnownVulns(db, sql`m.company_id = ${companyId}::uuid and m.id = ${matchId}::uuid`);
  if (!m) throw notFound('known vulnerability');
  type Row = {
    state: Recorded['state'];
    justification: Recorded['justification'];
    response: Recorded['response'] | null;
    detail: string;
    actor: string;
    decided_at: string | Date;
  };
  const history = await selectRows<Row>(
    db,
    sql`
    select state, justification, response, detail, actor, decided_at from vuln_decisions
    where company_id = ${companyId}::uuid and match_id = ${matchId}::uuid order by decided_at, id`,
  );
  return {
    ...m,
    history: history.map((h) => ({
      state: h.state,
      justification: h.justification,
      response: h.response ?? [],
      detail: h.detail,
      actor: h.actor,
      decidedAt: new Date(h.decided_at).toISOString(),
    })),
  };
}
