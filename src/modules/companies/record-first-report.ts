import { type SQL, sql } from 'drizzle-orm';

/**
 * Records the first-report activation milestone (spec Rule 3) unless it is already set; returns
 * the company's id only when this statement set it. The `is null` condition makes it race-free: a
 * concurrent first filing blocks on the row lock, then re-checks the condition against the
 * committed row and updates nothing, so the milestone is set once, with the time of the winner.
 */
export function firstReportUpdateSql(companyId: string, at: Date): SQL {
  return sql`update companies set first_report_at = ${at.toISOString()}::timestamptz
where id = ${companyId}::uuid and first_report_at is null returning id`;
}
