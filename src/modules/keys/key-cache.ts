import type { Database } from '../../db/client.js';
import { versionedStore } from '../../db/company-read-cache.js';
import { dataVersions } from '../../db/data-versions.js';
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

type Found = { key: KeyRecord; digest: string } | undefined;

/**
 * An in-process cache of API keys by digest, on the global `keys` version domain
 * (src/db/version-domains.ts, docs/adr/0017-version-domains.md). Every change to what
 * authentication reads (a key updated other than its last use, deleted, a company's plan changed, a
 * company deleted) raises the domain's version in the same transaction (database triggers), and an
 * entry is used only while the version read for the lookup is the one it was read at:
 *
 * - PostgreSQL (several instances may share it): each lookup waits for a version read issued after
 *   it began. Lookups that arrive in the same event-loop turn share one read (src/db/data-versions.ts,
 *   one row, shared with the other version-checked caches), so under load one small query serves
 *   many requests instead of one key lookup each. A change committed on any instance, or by hand in
 *   psql, is seen by the next request anywhere.
 * - PGlite (one process holds it): the same versions are counted from the triggers' notifications,
 *   which arrive with the committing statement's own answer, before the committing code resumes;
 *   no read per request (src/db/data-versions.ts).
 *
 * Entries are filled through the one fill guard of the company read caches (`versionedStore`).
 * Only keys that exist are kept (an unknown value always asks the database, so random values cannot
 * fill memory, and a new key needs no invalidation); at most `maxEntries`, oldest dropped first.
 * The lookup is by SHA-256 digest, and the digest found is compared again in constant time.
 */
export async function createKeyCache(database: Database, opts: { maxEntries?: number } = {}): Promise<KeyCache> {
  const { db } = database;
  const entries = new BoundedMap<string, { seq: number; version: number; value: Found }>(opts.maxEntries ?? 10_000);
  const store = versionedStore<Found>(entries, (found) => found !== undefined);
  const stats = { hits: 0, misses: 0 };
  const versions = dataVersions(db);
  // The latest-issued version read seen, for `known` (which reads nothing).
  let seenSeq = 0;
  let seenVersion = Number.NaN;

  async function read(digest: string): Promise<Found> {
    const row = await asSystem(() => findKeyByDigest(db, digest));
    if (!row || !safeEqual(row.digest, digest)) return undefined;
    const { digest: stored, ...fields } = row;
    const key: KeyRecord = Object.freeze({
      ...fields,
      scopes: Object.freeze([...fields.scopes]) as string[],
      allowedIps: Object.freeze([...fields.allowedIps]) as string[],
    });
    return { key, digest: stored };
  }

  return {
    stats,
    async find(value) {
      if (!KEY_FORMAT.test(value)) return undefined;
      const digest = sha256Hex(value);
      const snapshot = await versions.after();
      if (snapshot.seq > seenSeq) {
        seenSeq = snapshot.seq;
        seenVersion = snapshot.keyState;
      }
      const hit = store.get(digest, snapshot.keyState);
      if (hit && safeEqual(hit.digest, digest)) {
        stats.hits++;
        return hit.key;
      }
      stats.misses++;
      return (await store.fill(digest, snapshot.seq, snapshot.keyState, () => read(digest)))?.key;
    },
    known(value) {
      if (!KEY_FORMAT.test(value)) return false;
      const digest = sha256Hex(value);
      const hit = store.get(digest, seenVersion);
      return hit !== undefined && safeEqual(hit.digest, digest);
    },
    async close() {
      entries.clear();
    },
  };
}
