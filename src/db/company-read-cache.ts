import type { Db } from './client.js';
import { dataVersions } from './data-versions.js';
import { perHandle } from './prepared.js';
import type { CompanyDomain } from './version-domains.js';
import { BoundedMap } from '../kernel/bounded-map.js';
import { shareValue } from '../kernel/shared-value.js';

/** A company's value loaded from the database: the part of a cache that the loader test runs (test/db/cache-loaders.test.ts). */
export type CompanyLoader<T> = (db: Db, companyId: string, variant: string | undefined) => Promise<T>;

export type CompanyReadCache<T> = {
  /**
   * The company's value (of one `variant`, such as a product filter, when the read has several)
   * as the database holds it at a moment after this call began.
   */
  read(db: Db, companyId: string, variant?: string): Promise<T>;
  /** Counters for tests and benchmarks: reads answered from memory, reads that loaded. */
  readonly stats: { hits: number; misses: number };
};

/** Every company read cache of the process, by name: what the loader test runs against the version domains. */
export const companyReadCaches = new Map<string, { domain: CompanyDomain; load: CompanyLoader<unknown> }>();

/**
 * The one fill guard of every version-checked cache (this file's company caches and the key cache,
 * src/modules/keys/key-cache.ts). A value is labelled with the version read before it was loaded:
 * the load runs after that read, so it sees at least that state; if a change committed in between,
 * the version has already moved past the label and the next read loads again. Concurrent loads are
 * kept in the order their version reads were issued (by `seq`, not by version: a restored database's
 * versions go down), and reads that saw the same version share one load under way (no change
 * committed between their version reads, so it serves both).
 */
export type VersionedStore<T> = {
  /** The value kept for `key` if it was loaded at `version`. */
  get(key: string, version: number): T | undefined;
  /** Loads (or joins the load of) `key` after a version read (`seq`, `version`); kept when `keep` says so. */
  fill(key: string, seq: number, version: number, load: () => Promise<T>): Promise<T>;
};

export function versionedStore<T>(
  entries: BoundedMap<string, { seq: number; version: number; value: T }>,
  keep: (value: T) => boolean = () => true,
): VersionedStore<T> {
  const loading = new Map<string, { version: number; value: Promise<T> }>();
  async function load(key: string, seq: number, version: number, read: () => Promise<T>): Promise<T> {
    const value = await read();
    const current = entries.get(key);
    if (keep(value) && (!current || current.seq <= seq)) entries.set(key, { seq, version, value });
    return value;
  }
  return {
    get(key, version) {
      const kept = entries.get(key);
      return kept && kept.version === version ? kept.value : undefined;
    },
    async fill(key, seq, version, read) {
      const under = loading.get(key);
      if (under && under.version === version) return under.value;
      const value = load(key, seq, version, read);
      loading.set(key, { version, value });
      try {
        return await value;
      } finally {
        if (loading.get(key)?.value === value) loading.delete(key);
      }
    },
  };
}

/**
 * A company-scoped read kept in each process while the company's version of `domain` is unchanged
 * (src/db/version-domains.ts: the triggers raise it at the commit of every transaction that changes
 * a watched row, by any writer). `load` must read only the tables and columns the domain watches
 * (test/db/cache-loaders.test.ts checks it), outside a transaction of the caller's (a transaction
 * sees its own uncommitted rows, which no version describes).
 *
 * Each read waits for a version read issued after it began (shared by the turn's callers,
 * src/db/data-versions.ts), then answers from memory if the value was loaded at that version, else
 * loads through the fill guard above. Nothing is ever served that is older than the version read
 * for the request. Values are shared (src/kernel/shared-value.ts): frozen, and serialized once for
 * all the responses that carry them.
 */
export function companyReadCache<T>(
  name: string,
  domain: CompanyDomain,
  load: CompanyLoader<T>,
  opts: { maxEntries?: number; weigh?: (value: T) => number; maxWeight?: number } = {},
): CompanyReadCache<T> {
  if (companyReadCaches.has(name)) throw new Error(`company read cache ${name} is declared twice`);
  companyReadCaches.set(name, { domain, load });
  type Entry = { seq: number; version: number; value: T };
  // Bounded by weight when the values vary in size (a list weighs its length), else by count.
  const storeOf = perHandle(() => {
    const { weigh } = opts;
    return versionedStore<T>(
      weigh ? new BoundedMap<string, Entry>(opts.maxWeight ?? 50_000, (e) => weigh(e.value)) : new BoundedMap<string, Entry>(opts.maxEntries ?? 1024),
    );
  });
  const stats = { hits: 0, misses: 0 };
  return {
    stats,
    async read(db, companyId, variant) {
      const read = await dataVersions(db).after(companyId);
      const version = read.company(companyId, domain);
      const store = storeOf(db);
      const key = variant === undefined ? companyId : `${companyId}/${variant}`;
      const kept = store.get(key, version);
      // A kept value is never undefined: `undefined` (a loader's "none") is served but loaded again.
      if (kept !== undefined) {
        stats.hits++;
        return kept;
      }
      stats.misses++;
      return store.fill(key, read.seq, version, async () => shareValue(await load(db, companyId, variant)));
    },
  };
}
