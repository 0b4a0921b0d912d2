import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { type ResourceLimits, type TransferListItem, type WorkerOptions } from 'node:worker_threads';
import { AppError, ErrorCode } from './errors.js';
import { movable } from './worker-bytes.js';
import { watchBudget } from './job-budget.js';
import { moduleWorker } from './module-worker.js';
import type { Reply, TaskRef, Warmed, WorkerTask } from './worker-task.js';

export type WorkerPoolOptions = {
  /**
   * Workers, the global bound on jobs running at once (default: cores - 1, at least 2, at most 4).
   * At least two, with one job per key running: one company's job never holds a worker another
   * company needs (docs/architecture.md "Jobs off the event loop").
   */
  size?: number;
  /** Jobs of one key (a company) running at once (default 1). */
  perKey?: number;
  /** Callers' jobs of one key waiting; the next is refused with RATE_LIMITED (default 8). Background jobs are not counted. */
  maxQueuedPerKey?: number;
  /**
   * Background jobs waiting, all keys together; the next is refused with RATE_LIMITED (default 64).
   * A safety net only: the job runners that submit them claim a bounded batch and wait for it.
   */
  maxQueuedBackground?: number;
  /** V8 limits of each worker: a job beyond them ends its worker, not the process. */
  resourceLimits?: ResourceLimits;
  /** A worker idle this long is ended, giving its heap back (default 60 s). */
  idleMs?: number;
  /**
   * A worker whose heap a job left more than this above the heap it had once warm (its modules
   * loaded and their validators compiled) is ended before the job's result is handed over, so the
   * caller's own work on the result never stacks on the pages the worker still holds (default 32
   * MiB; a spare, or the next job, takes over).
   */
  recycleAboveMiB?: number;
  /**
   * Workers kept started and warm beyond the busy ones and one for each waiting job, while the pool
   * is in use, at most `size + spare` in all (default 0): each
   * loads the task modules the pool has run and runs their `warmUp` export before it is needed, and
   * an ended worker's spare is started at once, so a job never waits for a worker's start behind
   * another company's large document. Idle spares end after `idleMs` like any idle worker.
   */
  spare?: number;
  /**
   * A job working longer than this (its thread's CPU time from its task's start, not its worker's;
   * src/kernel/job-budget.ts) ends its worker and fails naming the budget (default 30 s).
   */
  budgetMs?: number;
  /** Wall-clock time a job may take in all, working or waiting for a core (default 4 times `budgetMs`). */
  budgetWallMs?: number;
};

export type RunOptions = {
  /**
   * Work of Cradle's own job runners (the built-in triage), not a caller's request: it waits for
   * its turn in the key's FIFO like any job, but is never refused for the key's queue bound, which
   * is there to answer an over-eager caller with 429 (`maxQueuedBackground` bounds these instead).
   */
  background?: boolean;
};

export type WorkerPool = {
  /** Runs `task` on `input` in a worker, after the earlier jobs of `key` (FIFO per key). */
  run<T, I = unknown>(key: string, task: TaskRef<I, T>, input: NoInfer<I>, transfer?: TransferListItem[], options?: RunOptions): Promise<T>;
  /** Jobs running and waiting, for tests and diagnostics. */
  stats(): { running: number; queued: number; workers: number };
  /**
   * Takes no more jobs (refused with UNAVAILABLE), lets the accepted ones finish, then ends every
   * worker. Jobs still running after `graceMs` fail with UNAVAILABLE as their workers are ended.
   */
  close(graceMs?: number): Promise<void>;
};

type Job = {
  key: string;
  task: WorkerTask;
  input: unknown;
  transfer: TransferListItem[];
  background: boolean;
  resolve(v: unknown): void;
  reject(e: unknown): void;
};
type Slot = {
  worker: Worker;
  /** Its warm-up is done; `baseMiB` is its heap then. */
  warm?: boolean;
  baseMiB: number;
  job?: Job | undefined;
  idle?: NodeJS.Timeout | undefined;
  cancelBudget?: (() => void) | undefined;
  failure?: unknown;
  dead?: boolean;
};
const newWorker = (options: WorkerOptions): Worker => moduleWorker(import.meta.url, 'worker-entry', options);

const workerExit = (code: number) => new Error(`the worker running the job ended (exit code ${code})`);
const shuttingDown = () => new AppError(ErrorCode.UNAVAILABLE, 'the service is shutting down', { retryAfterSeconds: 5 });
const outOfMemory = () =>
  new AppError(ErrorCode.PAYLOAD_TOO_LARGE, 'the document needs more memory to read than one document may use; send a smaller one or split it');

/**
 * CPU-heavy jobs (parsing and validating pushed documents) off the event loop, on worker threads
 * (docs/architecture.md, "Jobs off the event loop"). Like the group commit, callers `run` and await;
 * the pool decides when. Each key (a company) has its own FIFO and at most `perKey` jobs running;
 * free workers take the next job round-robin across keys, so one company's queue of large pushes
 * never holds another company's push behind it for more than one job per worker. A job's error is
 * rebuilt as the same AppError (a bad document answers as it would inline); a worker that crashes
 * or runs out of its heap (`resourceLimits`) fails only its job and is replaced on the next one.
 * Idle workers are unreferenced (they never keep the process alive) and ended after `idleMs`.
 */
export function createWorkerPool(o: WorkerPoolOptions = {}): WorkerPool {
  const size = o.size ?? Math.min(4, Math.max(2, availableParallelism() - 1));
  const budgetMs = o.budgetMs ?? 30_000;
  const perKey = o.perKey ?? 1;
  const maxQueued = o.maxQueuedPerKey ?? 8;
  const maxBackground = o.maxQueuedBackground ?? 64;
  const idleMs = o.idleMs ?? 60_000;
  const recycleAbove = o.recycleAboveMiB ?? 32;
  const spare = o.spare ?? 0;
  // The task modules jobs have run: a worker started ahead of need warms them all.
  const seen = new Set<string>();
  const slots = new Set<Slot>();
  const queues = new Map<string, Job[]>();
  const running = new Map<string, number>();
  // When each key last had a job started; forgotten once it has nothing running or waiting.
  const served = new Map<string, number>();
  let serial = 0;
  let closed = false;
  // Ending workers at close: a job still running fails as the service shutting down.
  let ending = false;
  let backgroundQueued = 0;
  // Wakes close() when a job ends.
  let onFinish: (() => void) | undefined;
  let closing: Promise<void> | undefined;

  /** A worker that first loads `warm` (task modules) and runs their warm-ups, then takes jobs. */
  function spawn(warm: string[]): Slot {
    const worker = newWorker(o.resourceLimits ? { resourceLimits: o.resourceLimits } : {});
    const slot: Slot = { worker, baseMiB: 0 };
    worker.postMessage({ warm });
    let settled: (() => void) | undefined;
    worker.on('message', (reply: Reply | Warmed | { started: true }) => {
      if ('warmed' in reply) {
        slot.warm = true;
        slot.baseMiB = reply.heapMiB;
        return;
      }
      const job = slot.job;
      if (!job) return;
      if ('started' in reply) {
        // A job past its budget (a pathological document) ends its worker: only its own caller
        // waits on it, and the worker is replaced by the next job.
        slot.cancelBudget = watchBudget(worker, { ms: budgetMs, wallMs: o.budgetWallMs }, (failure) => {
          slot.failure = failure;
          void worker.terminate();
        });
        return;
      }
      const settle = () => {
        finish(slot);
        if (reply.ok) job.resolve(reply.value);
        else {
          const { code, message, issues, retryAfterSeconds } = reply.error;
          const extra = { ...(issues ? { issues } : {}), ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) };
          job.reject(code ? new AppError(code, message, extra) : new Error(message));
        }
      };
      if (reply.heapMiB - slot.baseMiB <= recycleAbove) return settle();
      // Handed over once the worker's heap is gone (see recycleAboveMiB); its spare starts now.
      settled = settle;
      slot.dead = true;
      void worker.terminate();
      topUp();
    });
    worker.on('error', (err: Error & { code?: string }) => {
      slot.failure = err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? outOfMemory() : err;
    });
    worker.on('exit', (code) => {
      slot.dead = true;
      slots.delete(slot);
      clearTimeout(slot.idle);
      slot.cancelBudget?.();
      if (settled) return settled();
      const job = slot.job;
      if (job) {
        finish(slot);
        job.reject(ending ? shuttingDown() : (slot.failure ?? workerExit(code)));
      }
    });
    worker.unref();
    slots.add(slot);
    return slot;
  }

  function finish(slot: Slot): void {
    const job = slot.job as Job;
    slot.job = undefined;
    slot.cancelBudget?.();
    const n = (running.get(job.key) ?? 1) - 1;
    if (n > 0) running.set(job.key, n);
    else running.delete(job.key);
    if (n <= 0 && !queues.has(job.key)) served.delete(job.key);
    if (!slot.dead) {
      slot.worker.unref();
      slot.idle = setTimeout(() => void slot.worker.terminate(), idleMs).unref();
    }
    setImmediate(dispatch);
    onFinish?.();
  }

  /** The next job: of the key served longest ago among those that may run another (round-robin). */
  function next(): Job | undefined {
    let pick: string | undefined;
    for (const key of queues.keys()) {
      if ((running.get(key) ?? 0) >= perKey) continue;
      if (pick === undefined || (served.get(key) ?? 0) < (served.get(pick) ?? 0)) pick = key;
    }
    if (pick === undefined) return undefined;
    const queue = queues.get(pick) as Job[];
    const job = queue.shift() as Job;
    if (job.background) backgroundQueued--;
    if (queue.length === 0) queues.delete(pick);
    served.set(pick, ++serial);
    return job;
  }

  function dispatch(): void {
    assign();
    topUp();
  }

  /**
   * Starts spares until `spare` live workers are idle beyond one for each job waiting (a company's
   * next large document would otherwise take the spare another company's push needs), at most
   * `size + spare` live in all.
   */
  function topUp(): void {
    if (closed || seen.size === 0 || spare === 0) return;
    const live = [...slots].filter((s) => !s.dead);
    for (let idle = idleLive(), all = live.length, want = wanted(); idle < want && all < size + spare; idle++, all++) {
      const slot = spawn([...seen]);
      slot.idle = setTimeout(() => void slot.worker.terminate(), idleMs).unref();
    }
  }

  /** Spares wanted idle: `spare`, and one for each job waiting. */
  const wanted = (): number => spare + [...queues.values()].reduce((a, q) => a + q.length, 0);
  /** Live workers without a job. */
  const idleLive = (): number => [...slots].filter((s) => !s.dead && !s.job).length;

  function assign(): void {
    // Jobs accepted before close still run (close waits for them); none after its grace.
    while (!ending) {
      const busy = [...slots].filter((s) => s.job).length;
      if (busy >= size) return;
      const job = next();
      if (!job) return;
      // A warm worker first; one still warming next (the job waits for its warm-up, not a start).
      const idle = [...slots].filter((s) => !s.job && !s.dead);
      const slot = idle.find((s) => s.warm) ?? idle[0] ?? spawn([job.task.module]);
      clearTimeout(slot.idle);
      slot.job = job;
      running.set(job.key, (running.get(job.key) ?? 0) + 1);
      slot.worker.ref();
      try {
        slot.worker.postMessage({ module: job.task.module, fn: job.task.fn, input: job.input }, movable(job.transfer));
      } catch (e) {
        // The input could not be cloned: the job's own fault, the worker is untouched.
        finish(slot);
        job.reject(e);
      }
    }
  }

  return {
    run<T, I = unknown>(key: string, task: TaskRef<I, T>, input: NoInfer<I>, transfer: TransferListItem[] = [], options: RunOptions = {}): Promise<T> {
      if (closed) return Promise.reject(shuttingDown());
      const background = options.background === true;
      const queue = queues.get(key) ?? [];
      const waiting = background ? backgroundQueued : queue.filter((j) => !j.background).length;
      if (waiting >= (background ? maxBackground : maxQueued)) {
        const what = background ? `${waiting} background jobs are` : `${waiting} documents of your company are`;
        return Promise.reject(new AppError(ErrorCode.RATE_LIMITED, `${what} already waiting to be read; try again shortly`, { retryAfterSeconds: 5 }));
      }
      seen.add(task.module);
      return new Promise<T>((resolve, reject) => {
        queue.push({ key, task, input, transfer, background, resolve: resolve as (v: unknown) => void, reject });
        if (background) backgroundQueued++;
        queues.set(key, queue);
        dispatch();
      });
    },
    stats: () => ({
      running: [...running.values()].reduce((a, b) => a + b, 0),
      queued: [...queues.values()].reduce((a, q) => a + q.length, 0),
      workers: [...slots].filter((s) => !s.dead).length,
    }),
    close(graceMs = 30_000) {
      closing ??= drainAndEnd(graceMs);
      return closing;
    },
  };

  async function drainAndEnd(graceMs: number): Promise<void> {
    closed = true;
    let graceOver = false;
    const grace = setTimeout(() => {
      graceOver = true;
      onFinish?.();
    }, graceMs).unref();
    while (!graceOver && (running.size > 0 || queues.size > 0)) await new Promise<void>((resolve) => (onFinish = resolve));
    clearTimeout(grace);
    onFinish = undefined;
    ending = true;
    for (const queue of queues.values()) for (const job of queue) job.reject(shuttingDown());
    queues.clear();
    backgroundQueued = 0;
    await Promise.all([...slots].map((s) => s.worker.terminate()));
  }
}
