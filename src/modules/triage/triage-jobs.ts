import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { triageJobs } from '../../db/schema/index.js';

export type ClaimedTriageJob = { id: string; companyId: string; reportId: string; attempts: number };

/** Attempts before a job is given up as `failed` (its last error kept for the operator). */
export const TRIAGE_MAX_ATTEMPTS = 5;

/**
 * Claims due triage jobs: pending ones whose back-off passed, and running ones whose lease lapsed
 * (their worker died). `skip locked` lets instances claim side by side without taking a job twice;
 * the lease keeps a live job from being taken over.
 */
export async function claimTriageJobs(db: Db, now: Date, opts: { batch: number; leaseMs: number }): Promise<ClaimedTriageJob[]> {
  const nowIso = now.toISOString();
  const res = await db.execute<{ id: string; company_id: string; report_id: string; attempts: number }>(sql`
    with picked as (
      select id from triage_jobs
      where state in ('pending', 'running') and (locked_until is null or locked_until <= ${nowIso}::timestamptz)
      order by created_at
      limit ${opts.batch}
      for update skip locked
    )
    update triage_jobs j
       set state = 'running', attempts = j.attempts + 1, updated_at = ${nowIso}::timestamptz,
           locked_until = ${new Date(now.getTime() + opts.leaseMs).toISOString()}::timestamptz
      from picked where j.id = picked.id
    returning j.id, j.company_id, j.report_id, j.attempts`);
  const rows = (res as unknown as { rows: { id: string; company_id: string; report_id: string; attempts: number }[] }).rows;
  return rows.map((r) => ({ id: r.id, companyId: r.company_id, reportId: r.report_id, attempts: Number(r.attempts) }));
}

/** A failed attempt: retried after 2^attempts × base (30 s, 1 min, 2 min, ...) or given up. */
export async function failTriageJob(db: Db, job: ClaimedTriageJob, error: string, now: Date, backoffBaseMs = 15_000): Promise<'pending' | 'failed'> {
  const state = job.attempts >= TRIAGE_MAX_ATTEMPTS ? 'failed' : 'pending';
  await db
    .update(triageJobs)
    .set({
      state,
      lastError: error.slice(0, 500),
      updatedAt: now,
      lockedUntil: state === 'pending' ? new Date(now.getTime() + backoffBaseMs * 2 ** job.attempts) : null,
    })
    .where(and(eq(triageJobs.id, job.id), eq(triageJobs.companyId, job.companyId)));
  return state;
}
