import type { Database } from '../../db/client.js';
import { dataVersions, type VersionSnapshot } from '../../db/data-versions.js';
import { asSystem } from '../../db/tenant-scope.js';
import { BoundedMap } from '../../kernel/bounded-map.js';
import { safeEqual, sha256Hex } from '../../kernel/ids.js';
import { findKeyByDigest, type KeyRecord } from './authenticate-key.js';
import { KEY_FORMAT } from './keys.schemas.js';

export type KeyCache = {
  /**
   * The key `value` names, as the database holds it at a moment after this call began: from memory
   * when the memory is provably current, else read by its digest.
   */
  find(value: string): Promise<KeyRecord | undefined>;
  /** Whether this instance holds the key in memory now (no read, no currency check): for deciding who may skip a hold-off, never for authenticating. */
  known(value: string): boolean;
  close(): Promise<void>;
  /** Counters for tests and benchmarks: lookups answered from memory, from the database. */
  readonly stats: { hits: number; misses: number };
};

type Entry = { key: KeyRecord; digest: string };

/**
 * An in-process cache of API keys by digest (docs/adr/0011-key-cache.md). Every change to what
 * authentication reads (a key updated other than its last use, deleted, a company's plan changed, a
 * company deleted) raises `key_state_version` in the same transaction (database triggers), and the
 * cache is emptied whenever that version is seen to move. A lookup uses memory only once the cache
 * is known to be current as of a moment after the lookup began:
 *
 * - PostgreSQL (several instances may share it): each lookup waits for a version read issued after
 *   it began. Lookups that arrive in the same event-loop turn share one read (src/db/data-versions.ts,
 *   one row, shared with the other version-checked caches), so under load one small query serves
 *   many requests instead of one key lookup each. A
 *   change committed on any instance, or by hand in psql, is seen by the next request anywhere.
 * - PGlite (one process holds it): the same versions are counted from the triggers' notifications,
 *   which arrive with the committing statement's own answer, before the committing code resumes;
 *   no read per request (src/db/data-versions.ts).
 *
 * Only keys that exist are kept (an unknown value always asks the database, so random values cannot
 * fill memory, and a new key needs no invalidation); at most `maxEntries`, oldest dropped first.
 * The lookup is by SHA-256 digest, and the digest found is compared again in constant time.
 */
export async function createKeyCache(database: Database, opts: { maxEntries?: number } = {}): Promise<KeyCache> {
  const maxEntries = opts.maxEntries ?? 10_000;
  const { db } = database;
  const entries = new BoundedMap<string, Entry>(maxEntries);
  const stats = { hits: 0, misses: 0 };
  /** Raised each time the cache is emptied: a lookup stores what it read only if none happened meanwhile. */
  let generation = 0;
  function empty(): void {
    entries.clear();
    generation++;
  }

  const versions = dataVersions(db);
  // Version reads in the order they were issued; a result is applied unless a later-issued read's
  // result already was (its snapshot is newer as far as any waiting lookup is concerned). Any other
  // value than the last one empties the cache, a lower one included (a database restored or failed
  // over to a replica that lags).
  let seen: number | undefined;
  let applied = 0;
  function apply(read: VersionSnapshot): void {
    if (read.seq <= applied) return;
    applied = read.seq;
    if (read.keyState !== seen) {
      seen = read.keyState;
      empty();
    }
  }

  return {
    stats,
    async find(value) {
      if (!KEY_FORMAT.test(value)) return undefined;
      const digest = sha256Hex(value);
      apply(await versions.after());
      const hit = entries.get(digest);
      if (hit && safeEqual(hit.digest, digest)) {
        stats.hits++;
        return hit.key;
      }
      stats.misses++;
      const before = generation;
      const row = await asSystem(() => findKeyByDigest(db, digest));
      if (!row || !safeEqual(row.digest, digest)) return undefined;
      const { digest: stored, ...fields } = row;
      const key: KeyRecord = Object.freeze({ ...fields, scopes: Object.freeze([...fields.scopes]) as string[], allowedIps: Object.freeze([...fields.allowedIps]) as string[] });
      // Read after the cache was current; kept only if no change was seen meanwhile (the next
      // lookup then reads it again).
      if (generation === before) entries.set(digest, { key, digest: stored });
      return key;
    },
    known(value) {
      if (!KEY_FORMAT.test(value)) return false;
      const digest = sha256Hex(value);
      const hit = entries.get(digest);
      return hit !== undefined && safeEqual(hit.digest, digest);
    },
    async close() {
      entries.clear();
    },
  };
}
