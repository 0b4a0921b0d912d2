import type { TransferListItem } from 'node:worker_threads';
import type { ErrorCode, FieldIssue } from './errors.js';

// The tasks the worker pool (src/kernel/worker-pool.ts) runs, and the messages between the pool and
// its workers (src/kernel/worker-entry.ts).

/** A task: a module's exported function `(input) => { value, transfer? }`, run in a worker. */
export type WorkerTask = { module: string; fn: string };
/** What a task function returns: `transfer` lists the buffers of `value` moved, not copied, back. */
export type TaskOutput<T> = { value: T; transfer?: TransferListItem[] };

declare const taskTypes: unique symbol;
/** A task with the types of its function: `run` takes its input and answers its value. */
export type TaskRef<I, O> = WorkerTask & { readonly [taskTypes]?: (input: I) => O };

type TaskFn = (input: never) => TaskOutput<unknown> | Promise<TaskOutput<unknown>>;
type TaskRefOf<F> = F extends (input: infer I) => TaskOutput<infer O> | Promise<TaskOutput<infer O>> ? TaskRef<I, O> : never;

/**
 * A typed reference to the task function `fn` of the module `name` beside `metaUrl` (the caller's
 * `import.meta.url`). `M` is the module's type (`import type * as M from './name.js'`), so the
 * function's name and types are checked while the main thread never loads the module; the job
 * registry (src/jobs/registry.ts) lists every task and its test loads each one.
 */
export const taskRef =
  <M>() =>
  <K extends { [N in keyof M]: M[N] extends TaskFn ? N : never }[keyof M] & string>(metaUrl: string, name: string, fn: K): TaskRefOf<M[K]> =>
    ({ module: taskModule(metaUrl, name), fn }) as WorkerTask as TaskRefOf<M[K]>;

/** The URL of a task module beside `metaUrl` (the caller's `import.meta.url`), with the caller's own extension. */
export const taskModule = (metaUrl: string, name: string): string => new URL(`./${name}${metaUrl.endsWith('.ts') ? '.ts' : '.js'}`, metaUrl).href;

/** The pool asks a new worker to load these task modules and run their `warmUp` before any job. */
export type WarmRequest = { warm: string[] };
/** A job for a worker: the task module's function `fn` on `input`. */
export type JobRequest = { module: string; fn: string; input: unknown };
/** A worker's warm-up is done; its heap then. */
export type Warmed = { warmed: true; heapMiB: number };
/** A job's answer, with the worker's heap after it. */
export type Reply = { heapMiB: number } & (
  { ok: true; value: unknown } | { ok: false; error: { code?: ErrorCode; message: string; issues?: FieldIssue[]; retryAfterSeconds?: number } }
);
