import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { isAppError } from './errors.js';
import { movable } from './worker-bytes.js';
import type { JobRequest, TaskOutput, WarmRequest } from './worker-task.js';

/**
 * The entry of every worker of src/kernel/worker-pool.ts: one job at a time, a task module's named
 * function, its answer (or its error, with an AppError's code and issues) posted back. A worker
 * started ahead of need first gets the task modules to warm: each is loaded and its `warmUp`
 * export, if any, run (compiling its validators), before any job is read.
 */

/** This thread's V8 heap as reserved now: the pool ends a worker that a job left large. */
const heapMiB = (): number => getHeapStatistics().total_heap_size / 1048576;

const port = parentPort;
if (!port) throw new Error('worker-entry runs only as a worker thread');

/** Settles when the warm-up is done: a job waits for it, so it never compiles what is being compiled. */
let ready: Promise<void> = Promise.resolve();

async function warm(modules: string[]): Promise<void> {
  for (const module of modules) {
    try {
      const mod = (await import(module)) as { warmUp?: () => unknown };
      await mod.warmUp?.();
    } catch {
      // The job that needs the module meets the same error and answers it; a warm-up never fails a worker.
    }
  }
  port?.postMessage({ warmed: true, heapMiB: heapMiB() });
}

port.on('message', async (m: JobRequest | WarmRequest) => {
  if ('warm' in m) {
    ready = warm(m.warm);
    return;
  }
  await ready;
  try {
    const mod = (await import(m.module)) as Record<string, (input: unknown) => Promise<TaskOutput<unknown>> | TaskOutput<unknown>>;
    const f = mod[m.fn];
    if (typeof f !== 'function') throw new Error(`${m.module} has no task ${m.fn}`);
    // The job's time budget counts from here: a fresh worker's start and imports are not the job's.
    port.postMessage({ started: true });
    const out = await f(m.input);
    port.postMessage({ ok: true, value: out.value, heapMiB: heapMiB() }, movable(out.transfer ?? []));
  } catch (e) {
    const error = isAppError(e)
      ? {
          code: e.code,
          message: e.message,
          ...(e.extra.issues ? { issues: e.extra.issues } : {}),
          ...(e.extra.retryAfterSeconds !== undefined ? { retryAfterSeconds: e.extra.retryAfterSeconds } : {}),
        }
      : { message: (e as Error)?.message ?? String(e) };
    port.postMessage({ ok: false, error, heapMiB: heapMiB() });
  }
});
