import { and, eq, isNotNull, notInArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { caseParticipants, caseReports, reports } from '../../db/schema/index.js';
import { CLOSED_STATES } from '../reports/lifecycle.js';

export type UpstreamCounts = { thirdParty: number; unnotified: number };

/**
 * Compliance evidence for Article 13(6) (docs/compliance.md "Verdicts"): per product name the report
 * names (lower case; `''` for none), how many reports still open mark a third-party component
 * (`componentPurl`), and how many of those no coordination case has told an upstream maintainer
 * of (a participant of role `upstream_maintainer` with a notified date, in a case holding the report).
 */
export async function upstreamNotices(db: Executor, companyId: string): Promise<Map<string, UpstreamCounts>> {
  const notified = sql`exists (select 1 from ${caseReports} cr join ${caseParticipants} cp on cp.case_id = cr.case_id
    where cr.report_id = ${reports.id} and cr.company_id = ${companyId} and cp.company_id = ${companyId}
      and cp.role = 'upstream_maintainer' and cp.notified_at is not null)`;
  const rows = await db
    .select({
      product: sql<string>`lower(coalesce(${reports.productName}, ''))`,
      thirdParty: sql<number>`count(*)::int`,
      unnotified: sql<number>`(count(*) filter (where not ${notified}))::int`,
    })
    .from(reports)
    .where(and(eq(reports.companyId, companyId), isNotNull(reports.componentPurl), notInArray(reports.status, [...CLOSED_STATES])))
    .groupBy(sql`1`);
  return new Map(rows.map((r) => [r.product, { thirdParty: r.thirdParty, unnotified: r.unnotified }]));
}
