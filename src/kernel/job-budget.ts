import type { Worker } from 'node:worker_threads';
import { AppError, ErrorCode } from './errors.js';

/**
 * How long a job on a worker thread may take: `budgetMs` of that thread's own CPU time (its work),
 * so that a legitimate document is not refused because other work held the cores (a 60,000-component
 * push failed its 30 s under heavy load while it had worked a fraction of that), and at most
 * `WALL_FACTOR` times that in all, so a job starved of CPU still ends. Without a thread CPU clock
 * (`Worker.cpuUsage`, Node 22.19 and later) the budget is wall-clock time, as it was.
 */
export const WALL_FACTOR = 4;

export type Budget = {
  /** Work: the thread's CPU time. */
  ms: number;
  /** Wall-clock time in all (default `WALL_FACTOR` times `ms`). */
  wallMs?: number | undefined;
};

const overWork = (ms: number) =>
  new AppError(
    ErrorCode.UNPROCESSABLE,
    `reading the document took longer than its budget of ${ms / 1000} s of work, so it was stopped and nothing was stored; send a smaller document or split it`,
  );
const overWall = (wallMs: number) =>
  new AppError(
    ErrorCode.UNAVAILABLE,
    `the server was too busy to finish reading the document within ${wallMs / 1000} s, so it was stopped and nothing was stored; try again later`,
    { retryAfterSeconds: 30 },
  );

const cpuMs = async (worker: Worker): Promise<number | undefined> => {
  if (typeof worker.cpuUsage !== 'function') return undefined;
  const u = await worker.cpuUsage().catch(() => undefined);
  return u && (u.user + u.system) / 1000;
};

/**
 * Watches the job that has just started on `worker`: calls `over` with the error to answer once the
 * job has used its budget (of work, or of wall-clock time), at most once. Returns the cancel, for
 * when the job ends first.
 */
export function watchBudget(worker: Worker, budget: Budget, over: (failure: AppError) => void): () => void {
  const budgetMs = budget.ms;
  const wallMs = budget.wallMs ?? budgetMs * WALL_FACTOR;
  const startedAt = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  const arm = (ms: number, check: () => void) => {
    if (!cancelled) timer = setTimeout(check, ms).unref();
  };
  void cpuMs(worker).then((cpu0) => {
    // No thread CPU clock: wall-clock time alone.
    if (cpu0 === undefined) return arm(budgetMs, () => over(overWork(budgetMs)));
    const check = () =>
      void cpuMs(worker).then((cpu) => {
        if (cancelled) return;
        const worked = cpu === undefined ? Date.now() - startedAt : cpu - cpu0;
        if (worked >= budgetMs) return over(overWork(budgetMs));
        const wallLeft = wallMs - (Date.now() - startedAt);
        if (wallLeft <= 0) return over(overWall(wallMs));
        // It cannot use up the rest of its budget sooner than in that much time.
        arm(Math.min(wallLeft, Math.max(250, budgetMs - worked)), check);
      });
    arm(Math.min(budgetMs, wallMs), check);
  });
  return () => {
    cancelled = true;
    clearTimeout(timer);
  };
}
