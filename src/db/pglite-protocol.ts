// What the main thread and the embedded database's worker (src/db/pglite-worker.ts) say to each
// other over the worker's port (ADR 0018). Everything crossing is structured-cloned: no functions,
// and an Error keeps only its message and stack, so a database error travels as its fields.

/** The options of a query that cross: drizzle's row mode, and the types the worker must leave as text. */
export type QueryWire = { rowMode?: 'array' | 'object' | undefined; paramTypes?: number[] | undefined; textOids?: number[] | undefined };

export type Request =
  | { id: number; t: 'query'; tx?: number | undefined; sql: string; params: unknown[]; options: QueryWire }
  | { id: number; t: 'exec'; tx?: number | undefined; sql: string }
  | { id: number; t: 'begin'; tx: number }
  /** Ends transaction `tx`: commits it (`commit`) or rolls it back. */
  | { id: number; t: 'end'; tx: number; commit: boolean }
  | { id: number; t: 'rollback'; tx: number }
  | { id: number; t: 'listen'; channel: string }
  | { id: number; t: 'unlisten'; channel: string }
  | { id: number; t: 'dump' }
  /** The WebAssembly heap's size and how busy the thread was since the last `stats` (src/db/pglite-recycle.ts). */
  | { id: number; t: 'stats' }
  | { id: number; t: 'close' };

export type WireError = { message: string; name: string; stack?: string | undefined; fields: Record<string, string | number | boolean> };

/** An answer to request `id`, or (`n`) a notification on channel `n`. */
export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError } | { n: string; payload: string };

/** The answer to `stats`. */
export type WorkerStats = { wasmBytes: number; busy: number };

/** What the worker is started with (`workerData`). */
export type WorkerStart = {
  dataDir?: string | undefined;
  image?: ArrayBuffer | undefined;
  liftoffOnly: boolean;
  /** The server's database: the worker gives its heap's idle memory back (src/kernel/memory-reclaim.ts, ADR 0020). */
  reclaimIdleMemory?: boolean | undefined;
};

// The statement, its parameters and PGlite's query options that PGlite copies onto its errors: the
// report text they may carry stays in the worker (and the error stays small).
const LEFT_IN_WORKER = new Set(['query', 'params', 'queryOptions']);

/** An error as it crosses: message, name, stack and its own primitive fields (`code`, `constraint`, `detail`, …). */
export function errorToWire(e: unknown): WireError {
  const err = e instanceof Error ? e : new Error(String(e));
  const fields: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(err)) {
    if (LEFT_IN_WORKER.has(k)) continue;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') fields[k] = v;
  }
  return { message: err.message, name: err.name, stack: err.stack, fields };
}

/** The error again, on the main thread: an Error with the same message, name and fields. */
export function errorFromWire(w: WireError): Error {
  const err = new Error(w.message);
  Object.assign(err, w.fields);
  err.name = w.name;
  if (w.stack) err.stack = w.stack;
  return err;
}
