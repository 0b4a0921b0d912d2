import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import { type Listen, WAKE_CHANNELS } from '../../db/notifications.js';
import { startQueueLoop } from '../../db/poll-loop.js';
import { holdOffloadPool } from '../../kernel/offload-pool.js';
import type { LlmConfig } from './llm-triage.js';
import { runTriageJob } from './run-triage.js';
import { claimTriageJobs, failTriageJob } from './triage-jobs.js';

export type TriageWorkerOptions = {
  llm?: LlmConfig | undefined;
  /** Jobs claimed per pass (run side by side). */
  batch?: number;
  pollMs?: number;
  /** Lease of one job: longer than the model's timeout, so a live job is never taken over. */
  leaseMs?: number;
  /** Back-off base of a failed job (tests shrink it). */
  backoffBaseMs?: number;
  /** Wakes the loop when a triage job is queued (Database.listen); without it, it polls only. */
  listen?: Listen;
  log?: Logger;
};

/** One awaited pass (tests, tools): run every due triage job once. Returns how many ran. */
export async function runTriageCycle(db: Db, o: TriageWorkerOptions, now = new Date()): Promise<number> {
  const jobs = await claimTriageJobs(db, now, { batch: o.batch ?? 8, leaseMs: o.leaseMs ?? leaseFor(o) });
  await Promise.all(
    jobs.map((job) =>
      runTriageJob(db, job, o.llm).catch(async (err: unknown) => {
        const state = await failTriageJob(db, job, (err as Error).message ?? String(err), new Date(), o.backoffBaseMs);
        o.log?.warn({ err, jobId: job.id, reportId: job.reportId, state }, 'triage job failed');
      }),
    ),
  );
  return jobs.length;
}

const leaseFor = (o: TriageWorkerOptions): number => Math.max(60_000, (o.llm?.timeoutMs ?? 0) * 2);

export type TriageWorker = { nudge(): void; stop(): Promise<void> };

/**
 * The triage job runner of one process: triage jobs every `pollMs` (at once when a job is queued:
 * migration 0020). Several instances may run it against one PostgreSQL: jobs are claimed with
 * leases and `skip locked`. A failing pass (database briefly away) is logged and retried at the
 * next tick. Started from the job registry (src/jobs/registry.ts).
 */
export function startTriageWorker(db: Db, o: TriageWorkerOptions): TriageWorker {
  // Its jobs run on the offload pool: held open until the loop has stopped (its last job finished).
  const releasePool = holdOffloadPool();
  const loop = startQueueLoop(() => runTriageCycle(db, o), {
    pollMs: o.pollMs ?? 1000,
    onError: (err) => o.log?.error({ err }, 'triage worker pass failed'),
    ...(o.listen ? { wake: { listen: o.listen, channel: WAKE_CHANNELS.triage } } : {}),
  });
  return {
    nudge: loop.nudge,
    async stop() {
      await loop.stop();
      await releasePool();
    },
  };
}
