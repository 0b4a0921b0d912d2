import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { companies } from '../../db/schema/index.js';

/**
 * Records the first-report activation milestone (spec Rule 3) unless it is already set. Returns
 * true when this call set it. The `is null` condition makes it race-free: a concurrent first filing
 * blocks on the row lock, then re-checks the condition against the committed row and updates
 * nothing, so the milestone is set exactly once, with the time of the report that won.
 */
export async function recordFirstReport(tx: Executor, companyId: string, at: Date): Promise<boolean> {
  const rows = await tx
    .update(companies)
    .set({ firstReportAt: at })
    .where(and(eq(companies.id, companyId), isNull(companies.firstReportAt)))
    .returning({ id: companies.id });
  return rows.length > 0;
}
