import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { advisories, reports } from '../../db/schema/index.js';
import { ADVISORY_REPORT_STATES } from './create-advisory.js';

/**
 * Compliance evidence for Annex I Part II (4) and (8): per product name the report names (lower
 * case; `''` for reports naming none), how many fixed or disclosed reports have no published
 * advisory. The compliance snapshot maps these onto `ProductEvidence.fixedWithoutAdvisory`.
 */
export async function fixedWithoutAdvisory(db: Executor, companyId: string): Promise<Map<string, number>> {
  const rows = await db
    .select({ product: sql<string>`lower(coalesce(${reports.productName}, ''))`, n: sql<number>`count(*)::int` })
    .from(reports)
    .where(
      and(
        eq(reports.companyId, companyId),
        inArray(reports.status, [...ADVISORY_REPORT_STATES]),
        sql`not exists (select 1 from ${advisories} where ${advisories.reportId} = ${reports.id} and ${advisories.companyId} = ${companyId} and ${advisories.status} = 'published')`,
      ),
    )
    .groupBy(sql`1`);
  return new Map(rows.map((r) => [r.product, r.n]));
}
