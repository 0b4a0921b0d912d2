import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import { type Listen, WAKE_CHANNELS } from '../../db/notifications.js';
import { type PollLoop, startQueueLoop } from '../../db/poll-loop.js';
import { claimSbomMatches, failSbomMatch, runSbomMatch } from './sbom-match-jobs.js';

export type SbomMatchWorkerOptions = {
  /** Matches claimed per pass (run one after another: each is a long read and one transaction). */
  batch?: number;
  pollMs?: number;
  /** Lease of one match: a live match is never taken over; a dead process's is after this. */
  leaseMs?: number;
  /** Back-off base of a failed match (tests shrink it). */
  backoffBaseMs?: number;
  /** Wakes the loop when a match is queued (Database.listen); without it, it polls only. */
  listen?: Listen;
  log?: Logger;
};

export const SBOM_MATCH_LEASE_MS = 10 * 60_000;

/** One awaited pass (tests, tools): claims due matches and runs them. Returns how many were claimed. */
export async function runSbomMatchCycle(db: Db, o: SbomMatchWorkerOptions = {}, now = new Date()): Promise<number> {
  const jobs = await claimSbomMatches(db, now, { batch: o.batch ?? 4, leaseMs: o.leaseMs ?? SBOM_MATCH_LEASE_MS });
  for (const job of jobs) {
    try {
      await runSbomMatch(db, job);
    } catch (err) {
      await failSbomMatch(db, job, (err as Error).message ?? String(err), new Date(), o.backoffBaseMs);
      o.log?.warn({ err, sbomId: job.sbomId, attempts: job.attempts }, 'SBOM match failed; it is tried again');
    }
  }
  return jobs.length;
}

/**
 * The deferred known-vulnerability matches of one process (`known-vulns.match` in
 * src/jobs/registry.ts): woken when a push queues one (migration 0029), polling as the safety net.
 * Several instances may run it against one PostgreSQL: matches are claimed with leases and `skip
 * locked`, and a process that died leaves its lease to lapse, so no queued match is lost.
 */
export function startSbomMatchWorker(db: Db, o: SbomMatchWorkerOptions): PollLoop {
  return startQueueLoop(() => runSbomMatchCycle(db, o), {
    pollMs: o.pollMs ?? 5_000,
    onError: (err) => o.log?.error({ err }, 'SBOM match pass failed'),
    ...(o.listen ? { wake: { listen: o.listen, channel: WAKE_CHANNELS.sbomMatch } } : {}),
  });
}
