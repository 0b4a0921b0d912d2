import type { Db } from '../../db/client.js';
import { perHandle } from '../../db/prepared.js';
import { asSystem } from '../../db/tenant-scope.js';
import { BoundedMap } from '../../kernel/bounded-map.js';
import type { Company } from './companies.schemas.js';
import { findCompanyBySlug } from './get-company.js';

/**
 * How long a portal request may use a company row read by an earlier one. Changes made in this
 * process (`updateCompany`) take effect at once; changes made by another process (a second
 * instance, the CLI on PostgreSQL) within this time.
 */
export const PORTAL_COMPANY_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

type Cache = {
  entries: BoundedMap<string, { company: Company; readAt: number }>;
  /** Lookups under way, shared by concurrent requests for the same slug. */
  loading: Map<string, Promise<Company | undefined>>;
  /** Bumped by every `forgetPortalCompany`: a lookup that started before it does not fill the cache. */
  generation: number;
};
const cacheOf = perHandle((): Cache => ({ entries: new BoundedMap(MAX_ENTRIES), loading: new Map(), generation: 0 }));

/**
 * The company whose portal answers at `slug`, for portal requests. Every portal request needs it,
 * and on the embedded database a query costs about as much as the bare INSERT of the intake
 * benchmark, so rows are kept for `PORTAL_COMPANY_TTL_MS`. Each entry is one company's own row
 * under its own (immutable, unique) slug, so no company is ever answered with another's data. Unknown
 * slugs are not kept: a company created a moment ago has its portal at once. The row is frozen:
 * requests share it.
 *
 * Filing does not trust the cached flags (AI triage, first-report milestone): the filing statement
 * reads them from the company row it writes against (src/modules/reports/file-report.ts).
 */
export function findPortalCompany(db: Db, slug: string, now = Date.now()): Promise<Company | undefined> {
  const key = slug.toLowerCase();
  const cache = cacheOf(db);
  const hit = cache.entries.get(key);
  if (hit && now - hit.readAt < PORTAL_COMPANY_TTL_MS) return Promise.resolve(hit.company);
  let pending = cache.loading.get(key);
  if (!pending) {
    const generation = cache.generation;
    // Filled for every later request, so read as Cradle's own code, not in one request's scope.
    const lookup: Promise<Company | undefined> = asSystem(() => findCompanyBySlug(db, key))
      .then((company) => {
        if (!company) {
          cache.entries.delete(key);
          return undefined;
        }
        const frozen = Object.freeze(company);
        if (cache.generation === generation) cache.entries.set(key, { company: frozen, readAt: now });
        return frozen;
      })
      .finally(() => {
        if (cache.loading.get(key) === lookup) cache.loading.delete(key);
      });
    cache.loading.set(key, lookup);
    pending = lookup;
  }
  return pending;
}

/** Drops the kept row of `slug` after its company changed, so this process's portals show the change at once. */
export function forgetPortalCompany(db: Db, slug: string): void {
  const cache = cacheOf(db);
  cache.generation++;
  cache.entries.delete(slug.toLowerCase());
  cache.loading.delete(slug.toLowerCase());
}
