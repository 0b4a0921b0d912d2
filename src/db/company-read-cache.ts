import type { Db } from './client.js';
import { dataVersions } from './data-versions.js';
import { perHandle } from './prepared.js';
import { BoundedMap } from '../kernel/bounded-map.js';
import { shareValue } from '../kernel/shared-value.js';

export type CompanyReadCache<T> = {
  /**
   * The company's value (of one `variant`, such as a product filter, when the read has several)
   * as the database holds it at a moment after this call began.
   */
  read(db: Db, companyId: string, variant?: string): Promise<T>;
  /** Counters for tests and benchmarks: reads answered from memory, reads that loaded. */
  readonly stats: { hits: number; misses: number };
};

/**
 * A company-scoped read kept in each process while the company's data version is unchanged
 * (ADR 0012's per-company version, raised at the commit of every transaction that changes one of
 * the company's evidence rows, products included, by any writer). `load` must read only tables
 * those triggers watch (migration 0007), outside a transaction of the caller's (a transaction
 * sees its own uncommitted rows, which no version describes).
 *
 * Each read waits for a version read issued after it began (shared by the turn's callers,
 * src/db/data-versions.ts), then answers from memory if the value was loaded at that version.
 * Otherwise it loads again and keeps the value under the version just read: the load runs after
 * that read, so it sees at least that state; if a change committed in between, the version has
 * already moved past the label and the next read loads again. Nothing is ever served that is
 * older than the version read for the request. Values are shared (src/kernel/shared-value.ts):
 * frozen, and serialized once for all the responses that carry them.
 */
export function companyReadCache<T>(
  load: (db: Db, companyId: string, variant: string | undefined) => Promise<T>,
  opts: { maxEntries?: number; weigh?: (value: T) => number; maxWeight?: number } = {},
): CompanyReadCache<T> {
  type Entry = { seq: number; version: number; value: T };
  // Bounded by weight when the values vary in size (a list weighs its length), else by count.
  const bounded = (): BoundedMap<string, Entry> => {
    const { weigh } = opts;
    return weigh ? new BoundedMap<string, Entry>(opts.maxWeight ?? 50_000, (e) => weigh(e.value)) : new BoundedMap<string, Entry>(opts.maxEntries ?? 1024);
  };
  const entriesOf = perHandle(bounded);
  const stats = { hits: 0, misses: 0 };
  return {
    stats,
    async read(db, companyId, variant) {
      const read = await dataVersions(db).after(companyId);
      const version = read.company(companyId);
      const entries = entriesOf(db);
      const key = variant === undefined ? companyId : `${companyId}/${variant}`;
      const kept = entries.get(key);
      if (kept && kept.version === version) {
        stats.hits++;
        return kept.value;
      }
      stats.misses++;
      const value = shareValue(await load(db, companyId, variant));
      // Two reads may load concurrently: the one whose version read was issued later is kept (by
      // issue order, not by value: a restored database's versions can go down).
      const current = entries.get(key);
      if (!current || current.seq <= read.seq) entries.set(key, { seq: read.seq, version, value });
      return value;
    },
  };
}
