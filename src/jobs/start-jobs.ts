import { startPollLoop } from '../db/poll-loop.js';
import type { Job, JobEnv, Running } from './jobs.js';

/**
 * Starts every periodic job and queue worker of `jobs` (pool tasks are run by their verbs) and
 * returns the one handle that stops them, in the reverse order of the list: the scans first, then
 * the queue workers, each letting its work in flight finish.
 */
export async function startJobs(env: JobEnv, jobs: readonly Job[]): Promise<Running> {
  const started: Running[] = [];
  for (const job of jobs) {
    if (job.kind === 'queue') {
      const r = await job.start(env);
      if (r) started.push(r);
    } else if (job.kind === 'periodic') {
      const everyMs = job.everyMs(env.config);
      if (everyMs === undefined) continue;
      started.push(
        startPollLoop(() => job.run(env), {
          pollMs: everyMs,
          onError: (err) => env.log.error({ err, job: job.name }, 'background job pass failed; retrying at the next tick'),
        }),
      );
    }
  }
  return {
    async stop() {
      for (const r of started.reverse()) await r.stop();
    },
  };
}
