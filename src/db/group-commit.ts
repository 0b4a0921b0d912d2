import { asSystem } from './tenant-scope.js';

type Pending<T, R> = { item: T; resolve: (r: R) => void; reject: (e: unknown) => void };

export type GroupCommit<T, R> = {
  /** Resolves with the item's result once the batch holding it is committed. */
  submit(item: T): Promise<R>;
  /** Waits for every queued item to be committed or refused. */
  drain(): Promise<void>;
};

/**
 * Group commit (docs/adr/0005-audit-group-commit.md): items that arrive while a batch is being
 * committed wait for the next batch, so under load one transaction (one WAL flush) carries many of
 * them, and with no load an item is committed at once with no timer delay. `commit` writes a batch
 * in one transaction and returns one result per item, in order. When a batch fails, its items are
 * retried one by one so that one bad item cannot fail its neighbours. Batches run as system scope
 * (src/db/tenant-scope.ts): the code that builds items decides their company, not the batch.
 */
export function createGroupCommit<T, R>(commit: (batch: T[]) => Promise<R[]>, opts: { maxBatch?: number; maxInFlight?: number } = {}): GroupCommit<T, R> {
  const maxBatch = opts.maxBatch ?? 500;
  // Batches committing at once. More than one lets a new batch start while the previous one waits
  // for its WAL flush (PostgreSQL merges concurrent flushes itself); PGlite has one connection, so 1.
  const maxInFlight = opts.maxInFlight ?? 1;
  let queue: Pending<T, R>[] = [];
  const running = new Set<Promise<void>>();

  async function commitBatch(batch: Pending<T, R>[]): Promise<void> {
    try {
      const results = await commit(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(results[i] as R));
    } catch {
      for (const p of batch) {
        try {
          const [r] = await commit([p.item]);
          p.resolve(r as R);
        } catch (e) {
          p.reject(e);
        }
      }
    }
  }

  function kick(): void {
    if (running.size >= maxInFlight || queue.length === 0) return;
    // One event-loop turn of grace, so items produced together share the batch.
    const run: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        // A batch carries the rows of many requests, often of several companies: Cradle's own
        // cross-company work, whichever request's scope happened to start it.
        return batch.length > 0 ? asSystem(() => commitBatch(batch)) : undefined;
      })
      .finally(() => {
        running.delete(run);
        kick();
      });
    running.add(run);
  }

  return {
    submit(item) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        kick();
      });
    },
    async drain() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
