import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { isAppError } from './errors.js';
import { movable } from './worker-bytes.js';
import type { TaskOutput } from './worker-pool.js';

/**
 * The entry of every worker of src/kernel/worker-pool.ts: one job at a time, a task module's named
 * function, its answer (or its error, with an AppError's code and issues) posted back.
 */
type Request = { module: string; fn: string; input: unknown };

/** This thread's V8 heap as reserved now: the pool ends a worker that a job left large. */
const heapMiB = (): number => getHeapStatistics().total_heap_size / 1048576;

const port = parentPort;
if (!port) throw new Error('worker-entry runs only as a worker thread');

port.on('message', async (m: Request) => {
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
