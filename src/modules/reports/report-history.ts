import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { reportEvents } from '../../db/schema/index.js';

export type HistoryEntry = { at: Date; actor: string; fromStatus: string | null; toStatus: string | null; changes: Record<string, unknown> };

/** Every recorded change of one report, oldest first (the report page's timeline). */
export async function reportHistory(db: Executor, companyId: string, reportId: string): Promise<HistoryEntry[]> {
  const rows = await db
    .select()
    .from(reportEvents)
    .where(and(eq(reportEvents.companyId, companyId), eq(reportEvents.reportId, reportId)))
    .orderBy(asc(reportEvents.at));
  return rows.map((r) => ({
    at: r.at,
    actor: r.actorId ? `${r.actorType}:${r.actorId}` : r.actorType,
    fromStatus: r.fromStatus,
    toStatus: r.toStatus,
    changes: r.changes,
  }));
}
