import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import { startPollLoop } from '../../db/poll-loop.js';
import { raiseDeadlineAlerts } from '../article14/deadline-alerts.js';
import { raiseKeyExpiryNotices } from '../keys/key-expiry-notices.js';
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
  /** How often the Article 14 deadline scan runs. */
  deadlineScanMs?: number;
  /** Back-off base of a failed job (tests shrink it). */
  backoffBaseMs?: number;
  /** Called after a pass that queued webhook events (deadline alerts), to wake the webhook worker. */
  onEvents?: () => void;
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
 * The background loop of one process: triage jobs every `pollMs` (at once when nudged after a
 * filing), and the scans of what falls due (Article 14 deadlines, API keys about to expire) every
 * `deadlineScanMs`. Several instances may run it
 * against one PostgreSQL: jobs are claimed with leases and `skip locked`, alerts are unique rows.
 * A failing pass (database briefly away) is logged and retried at the next tick.
 */
export function startTriageWorker(db: Db, o: TriageWorkerOptions): TriageWorker {
  let lastScan = 0;
  let stopping = false;
  const pass = async () => {
    while (!stopping && (await runTriageCycle(db, o)) > 0);
    if (Date.now() - lastScan >= (o.deadlineScanMs ?? 60_000)) {
      lastScan = Date.now();
      const raised = await raiseDeadlineAlerts(db);
      const keys = await raiseKeyExpiryNotices(db);
      if (raised.length + keys.length > 0) o.onEvents?.();
    }
  };
  const loop = startPollLoop(pass, { pollMs: o.pollMs ?? 1000, onError: (err) => o.log?.error({ err }, 'triage worker pass failed') });
  return {
    nudge: loop.nudge,
    stop() {
      stopping = true;
      return loop.stop();
    },
  };
}
