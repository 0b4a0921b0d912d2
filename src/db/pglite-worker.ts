// The embedded database's own thread (ADR 0018): it owns the PGlite instance and answers the main
// thread's requests (src/db/pglite-remote.ts) over its port, in the order they arrive. PGlite is one
// session: its own mutexes serialise queries, and an open transaction holds every other caller
// until it ends, exactly as when the instance lived on the main thread.
import { setFlagsFromString } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { errorToWire, type Reply, type Request, type WorkerStart, type WorkerStats } from './pglite-protocol.js';
import { holdTextParsers, nativeBytea, textParsersFor } from './pglite-parsers.js';
import { startMemoryReclaim, threadSampler } from '../kernel/memory-reclaim.js';

/**
 * PGlite's own start parameters plus a smaller shared memory than PostgreSQL's: it lives in the
 * WASM heap, which never shrinks, and every page of it that is touched stays resident.
 * - An 8 MB buffer pool instead of PostgreSQL's 128 MB (16 MB until ADR 0027): 128 MB measured 316
 *   MB resident idle, 16 MB 179 MB. Reads below the pool go to PGlite's file layer and the OS page
 *   cache; durability is the WAL's, not the pool's.
 * - `max_connections=10`: PGlite is one backend (`--single`); lock and process tables sized for
 *   PostgreSQL's 100 connections are shared memory nobody uses.
 * Both together: WebAssembly memory 30 -> 18 MiB idle (ADR 0027).
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB', '-c', 'max_connections=10'];

const port = parentPort;
if (!port) throw new Error('src/db/pglite-worker.ts runs as a worker thread');
const start = workerData as WorkerStart;

// V8's flags belong to the process; this one must be set before PGlite compiles its module (ADR 0013).
if (start.liftoffOnly) setFlagsFromString('--liftoff-only');

const post = (reply: Reply, transfer?: ArrayBuffer[]): void => port.postMessage(reply, transfer);

type OpenTx = { tx: Transaction; end: (commit: boolean) => void; endRequest?: number };
const transactions = new Map<number, OpenTx>();
const listening = new Map<string, () => Promise<void>>();
// How busy this thread was between two `stats` requests (the recycling's idle test, src/db/pglite-recycle.ts).
const sampleThread = threadSampler();
// Thrown out of PGlite's transaction callback to have PGlite roll back; never reaches the main thread.
const ROLL_BACK = Symbol('roll back');

async function open(): Promise<PGlite> {
  const client = await PGlite.create({
    ...(start.dataDir ? { dataDir: start.dataDir } : {}),
    ...(start.image ? { loadDataDir: new Blob([start.image]) } : {}),
    startParams: PGLITE_START_PARAMS,
  });
  holdTextParsers(client);
  nativeBytea(client);
  return client;
}

function txOf(id: number): OpenTx {
  const open = transactions.get(id);
  if (!open) throw new Error('the transaction is no longer open');
  return open;
}

/** Opens transaction `req.tx`; answers once its BEGIN ran, and answers its `end` request when it has. */
function begin(client: PGlite, req: Extract<Request, { t: 'begin' }>): void {
  let began = false;
  client
    .transaction(
      (tx) =>
        new Promise<void>((resolve, reject) => {
          began = true;
          transactions.set(req.tx, { tx, end: (commit) => (commit ? resolve() : reject(ROLL_BACK)) });
          post({ id: req.id, ok: true, value: undefined });
        }),
    )
    .then(
      () => undefined,
      (e: unknown) => e,
    )
    .then((e) => {
      const open = transactions.get(req.tx);
      transactions.delete(req.tx);
      const failed = e !== undefined && e !== ROLL_BACK;
      if (!began) post({ id: req.id, ok: false, error: errorToWire(e) });
      else if (open?.endRequest !== undefined) {
        post(failed ? { id: open.endRequest, ok: false, error: errorToWire(e) } : { id: open.endRequest, ok: true, value: undefined });
      }
    });
}

async function handle(client: PGlite, req: Request): Promise<unknown> {
  switch (req.t) {
    case 'query': {
      const on = req.tx === undefined ? client : txOf(req.tx).tx;
      const parsers = textParsersFor(req.options.textOids);
      return on.query(req.sql, req.params, {
        ...(req.options.rowMode ? { rowMode: req.options.rowMode } : {}),
        ...(req.options.paramTypes ? { paramTypes: req.options.paramTypes } : {}),
        ...(parsers ? { parsers } : {}),
      });
    }
    case 'exec':
      return (req.tx === undefined ? client : txOf(req.tx).tx).exec(req.sql);
    case 'rollback':
      return txOf(req.tx).tx.rollback();
    case 'listen': {
      if (listening.has(req.channel)) return;
      listening.set(
        req.channel,
        // PGlite calls this in a microtask queued while it reads the committing statement's answer:
        // the notification is posted before that statement's answer is (the port keeps the order).
        await client.listen(req.channel, (payload) => post({ n: req.channel, payload })),
      );
      return;
    }
    case 'unlisten': {
      const stop = listening.get(req.channel);
      listening.delete(req.channel);
      return stop?.();
    }
    case 'dump': {
      // A consistent image (docs/backup.md): after a checkpoint, so that a restored copy starts with
      // little to replay, and inside a transaction of its own, so that it waits for every open one to
      // end (PGlite's transaction mutex) and no statement runs while the files are read.
      await client.exec('CHECKPOINT');
      const blob = await client.transaction(() => client.dumpDataDir('none'));
      return blob.arrayBuffer();
    }
    case 'stats':
      return { wasmBytes: client.Module.wasmMemory.buffer.byteLength, busy: sampleThread().busy } satisfies WorkerStats;
    default:
      throw new Error(`not a request to the embedded database: ${(req as { t: string }).t}`);
  }
}

const client = await open().catch((e: unknown) => {
  post({ id: 0, ok: false, error: errorToWire(e) });
  return undefined;
});
if (client) {
  port.on('message', (req: Request) => {
    if (req.t === 'begin') return begin(client, req);
    if (req.t === 'end') {
      const open = transactions.get(req.tx);
      if (!open) return post({ id: req.id, ok: false, error: errorToWire(new Error('the transaction is no longer open')) });
      open.endRequest = req.id;
      return open.end(req.commit);
    }
    if (req.t === 'close') {
      void client.close().then(
        () => post({ id: req.id, ok: true, value: undefined }),
        (e: unknown) => post({ id: req.id, ok: false, error: errorToWire(e) }),
      );
      return;
    }
    handle(client, req).then(
      (value) => (value instanceof ArrayBuffer ? post({ id: req.id, ok: true, value }, [value]) : post({ id: req.id, ok: true, value })),
      (e: unknown) => post({ id: req.id, ok: false, error: errorToWire(e) }),
    );
  });
  post({ id: 0, ok: true, value: undefined });
  // Opening left the module's bytes, the file system image's copy and the start's rows as garbage,
  // and every burst of statements grows the young generation (8 MiB here); nothing else collects
  // them while the server is idle (ADR 0020). The timer is unreferenced; the thread ends at close.
  if (start.reclaimIdleMemory) startMemoryReclaim();
}
