import type { Worker } from 'node:worker_threads';
import type { QueryOptions, Results } from '@electric-sql/pglite';
import { applyParsers, parsersToApply } from './pglite-parsers.js';
import { errorFromWire, type QueryWire, type Reply, type Request, type WorkerStart, type WorkerStats } from './pglite-protocol.js';
import { moduleWorker } from '../kernel/module-worker.js';
import { timedStatement } from '../kernel/telemetry.js';

// The main thread's side of the embedded database (ADR 0018): a client with PGlite's query,
// exec and transaction calls, which drizzle's PGlite session takes as it would the instance, and
// whose every call is one message to the worker that owns the instance (src/db/pglite-worker.ts)
// and one answer back.

/** SQLSTATE connection_failure: the error is one of an unavailable database (src/kernel/db-errors.ts). */
const STOPPED_CODE = '08006';

export type RemoteTransaction = {
  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string): Promise<Results[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
};

type Pending = { resolve(value: unknown): void; reject(e: Error): void };
type RequestBody = Request extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** Only drizzle's options cross; functions other than result parsers cannot. */
function wireOptions(options: QueryOptions | undefined): { wire: QueryWire; local: ReturnType<typeof parsersToApply> } {
  if (options?.serializers || options?.onNotice || options?.blob) {
    throw new Error('the embedded database runs in a worker: per-query serializers, notice handlers and blobs are not supported');
  }
  const local = parsersToApply(options?.parsers);
  return { wire: { rowMode: options?.rowMode, paramTypes: options?.paramTypes, textOids: local ? [...local.keys()] : undefined }, local };
}

export class RemotePglite {
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();
  // Session settings, set again on the instance a recycle opens (see `recycle`).
  private readonly session: string[] = [];
  private nextId = 1;
  private nextTx = 1;
  // Transactions begun and not yet ended: a recycle waits for none open and nothing pending.
  private openTransactions = 0;
  // While a recycle closes this instance and opens the next, calls outside a transaction wait on it.
  private reopening: Promise<void> | undefined;
  private stopped: Error | undefined;
  private exited!: Promise<void>;
  private worker!: Worker;
  private readonly start: WorkerStart;
  // Workers a recycle ended on purpose: their error and exit fail nothing, their successor has the calls.
  private readonly retired = new WeakSet<Worker>();

  private constructor(start: WorkerStart) {
    this.start = start;
  }

  /** Takes `worker` as the instance's thread: its answers, its notifications and its end. */
  private attach(worker: Worker): void {
    this.worker = worker;
    worker.on('message', (m: Reply) => this.receive(m));
    // An error in the worker is followed by its exit; the exit fails whatever is still waiting.
    worker.on('error', (e) => {
      if (!this.retired.has(worker)) this.stopped ??= this.stoppedError(`it failed: ${e.message}`);
    });
    this.exited = new Promise((resolve) => {
      worker.once('exit', (code) => {
        if (!this.retired.has(worker)) {
          this.stopped ??= this.stoppedError(`its thread ended (exit code ${code})`);
          for (const p of this.pending.values()) p.reject(this.stopped);
          this.pending.clear();
        }
        resolve();
      });
    });
    // An idle database never keeps the process alive; a pending request does (see `call`).
    worker.unref();
  }

  /** Starts the worker and opens the database in it; rejects when it cannot be opened. */
  static async start(start: WorkerStart): Promise<RemotePglite> {
    const remote = new RemotePglite(start);
    await remote.open(start);
    return remote;
  }

  private async open(start: WorkerStart): Promise<void> {
    const options = { workerData: start, transferList: start.image ? [start.image] : [] };
    this.attach(moduleWorker(import.meta.url, 'pglite-worker', options));
    // Request 0 is the worker's own: answered once the database is open.
    this.worker.ref();
    await new Promise((resolve, reject) => this.pending.set(0, { resolve, reject })).catch(async (e: unknown) => {
      await this.worker.terminate();
      throw e;
    });
  }

  private stoppedError(why: string): Error {
    return Object.assign(new Error(`the embedded database stopped: ${why}`), { code: STOPPED_CODE });
  }

  private receive(m: Reply): void {
    if ('n' in m) {
      for (const fn of this.handlers.get(m.n) ?? []) fn(m.payload);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (this.pending.size === 0) this.worker.unref();
    if (m.ok) p.resolve(m.value);
    else p.reject(errorFromWire(m.error));
  }

  private call<T>(body: RequestBody): Promise<T> {
    // A transaction's own statements never wait for a recycle: none starts while one is open.
    const inTransaction = body.t !== 'begin' && 'tx' in body && body.tx !== undefined;
    if (this.reopening && !inTransaction) return this.reopening.then(() => this.call<T>(body));
    if (this.stopped) return Promise.reject(this.stopped);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        this.worker.postMessage({ ...body, id });
      } catch (e) {
        // A parameter that cannot be cloned (a function, say): this call fails, nothing was sent.
        this.pending.delete(id);
        if (this.pending.size === 0) this.worker.unref();
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  private async run<T>(sql: string, params: unknown[] | undefined, options: QueryOptions | undefined, tx?: number): Promise<Results<T>> {
    const { wire, local } = wireOptions(options);
    // Timed as the caller waits for it (queueing behind the worker's other work included).
    const result = await timedStatement(() => this.call<Results<T>>({ t: 'query', tx, sql, params: params ?? [], options: wire }), 'pglite', sql);
    return local ? applyParsers(result, local) : result;
  }

  query<T>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.run<T>(sql, params, options);
  }

  exec(sql: string): Promise<Results[]> {
    return timedStatement(() => this.call<Results[]>({ t: 'exec', sql }), 'pglite', sql);
  }

  /**
   * Runs `fn` in a transaction on the worker: its statements run there in order while every other
   * caller waits, as PGlite's own transaction does. Committed when `fn` resolves, rolled back when
   * it throws (its error is rethrown) or called `rollback()`.
   */
  async transaction<T>(fn: (tx: RemoteTransaction) => Promise<T>): Promise<T> {
    const id = this.nextTx++;
    await this.call({ t: 'begin', tx: id });
    this.openTransactions++;
    let closed = false;
    const open = (): void => {
      if (closed) throw new Error('the transaction is closed');
    };
    const tx: RemoteTransaction = {
      query: async (sql, params, options) => (open(), this.run(sql, params, options, id)),
      exec: async (sql) => (open(), this.call({ t: 'exec', tx: id, sql })),
      rollback: async () => {
        open();
        await this.call({ t: 'rollback', tx: id });
        closed = true;
      },
      get closed() {
        return closed;
      },
    };
    try {
      let result: T;
      try {
        result = await fn(tx);
      } catch (e) {
        closed = true;
        await this.call({ t: 'end', tx: id, commit: false }).catch(() => undefined);
        throw e;
      }
      closed = true;
      await this.call({ t: 'end', tx: id, commit: true });
      return result;
    } finally {
      this.openTransactions--;
    }
  }

  /** Subscribes `fn` to a NOTIFY channel; its notifications arrive before the answer of the statement that raised them. */
  async listen(channel: string, fn: (payload: string) => void): Promise<() => Promise<void>> {
    const set = this.handlers.get(channel) ?? new Set();
    const fresh = set.size === 0;
    set.add(fn);
    this.handlers.set(channel, set);
    if (fresh) await this.call({ t: 'listen', channel });
    return async () => {
      set.delete(fn);
      if (set.size > 0 || this.handlers.get(channel) !== set) return;
      this.handlers.delete(channel);
      await this.call({ t: 'unlisten', channel }).catch(() => undefined);
    };
  }

  /** Runs a session setting (`set ...`) now and again on every instance a recycle opens. */
  async setSession(sql: string): Promise<void> {
    await this.exec(sql);
    this.session.push(sql);
  }

  /** The instance's WebAssembly heap and how busy its thread was since the previous call. */
  stats(): Promise<WorkerStats> {
    return this.call<WorkerStats>({ t: 'stats' });
  }

  /** Nothing pending, no transaction open, no recycle under way: a recycle may start now. */
  get idle(): boolean {
    return this.pending.size === 0 && this.openTransactions === 0 && !this.reopening && !this.stopped;
  }

  /**
   * Closes the instance and opens the same data directory in a new worker, whose WebAssembly heap
   * starts at its floor again (the old one never shrinks: ADR 0026). Only when `idle`, so no
   * statement and no transaction is cut; calls made meanwhile wait for the new instance, which
   * first listens on every channel and takes every session setting the old one had, so no
   * notification of a later commit is missed (ADR 0017). Resolves to the time calls were held.
   */
  async recycle(): Promise<number> {
    if (!this.idle) throw new Error('the embedded database is busy: it is recycled only when idle');
    if (!this.start.dataDir) throw new Error('an embedded database in memory cannot be reopened');
    const t0 = performance.now();
    let release!: () => void;
    this.reopening = new Promise<void>((resolve) => (release = resolve));
    try {
      const old = this.worker;
      await this.direct({ t: 'close' });
      this.retired.add(old);
      await old.terminate();
      await this.open(this.start);
      for (const channel of this.handlers.keys()) await this.direct({ t: 'listen', channel });
      for (const sql of this.session) await this.direct({ t: 'exec', sql });
    } catch (e) {
      // Calls then fail as on any stopped database (503), not hang.
      this.stopped ??= this.stoppedError(`it could not be reopened: ${(e as Error).message}`);
      void this.worker.terminate();
      throw e;
    } finally {
      this.reopening = undefined;
      release();
    }
    return performance.now() - t0;
  }

  /** A call past the recycle's gate: the recycle's own requests. */
  private direct<T>(body: RequestBody): Promise<T> {
    const held = this.reopening;
    this.reopening = undefined;
    try {
      return this.call<T>(body);
    } finally {
      this.reopening = held;
    }
  }

  /** An image of the data directory as it is now (PGlite's `dumpDataDir`, uncompressed). */
  async dumpDataDir(): Promise<Blob> {
    return new Blob([await this.call<ArrayBuffer>({ t: 'dump' })]);
  }

  /** Closes the database (its files flushed) and ends the worker; a stopped worker closes at once. */
  async close(): Promise<void> {
    if (!this.stopped) {
      try {
        await this.call({ t: 'close' });
      } finally {
        this.stopped = this.stoppedError('it was closed');
        await this.worker.terminate();
      }
    }
    await this.exited;
  }
}
