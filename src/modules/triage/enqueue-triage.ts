import type { Executor } from '../../db/client.js';
import { triageJobs } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';

/** Queues AI triage of one report, in the caller's transaction (one job per report). */
export async function enqueueTriage(tx: Executor, companyId: string, reportId: string, at: Date): Promise<void> {
  await tx.insert(triageJobs).values({ id: newId(), companyId, reportId, state: 'pending', createdAt: at, updatedAt: at });
}
