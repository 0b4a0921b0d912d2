import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companyReadCache } from '../../db/company-read-cache.js';
import { perHandle } from '../../db/prepared.js';
import { companies } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';
import { BoundedMap } from '../../kernel/bounded-map.js';
import type { Company } from './companies.schemas.js';

const MAX_ENTRIES = 10_000;

/** A company's own row, every column: the `company` version domain watches exactly that (src/db/version-domains.ts). */
async function loadCompany(db: Db, companyId: string): Promise<Company | undefined> {
  const [row] = await db.select().from(companies).where(eq(companies.id, companyId)).limit(1);
  return row;
}

// Read as Cradle's own code: the row is kept for every later request, not for one request's scope.
const rows = companyReadCache('portal company', 'company', (db, companyId) => asSystem(() => loadCompany(db, companyId)), { maxEntries: MAX_ENTRIES });

/**
 * Slugs never change and never move to another company while it exists, so each process keeps which
 * company a slug names (known slugs only: a company created a moment ago has its portal at once),
 * with the lookups under way shared by concurrent requests for one slug.
 */
type Slugs = { ids: BoundedMap<string, string>; resolving: Map<string, Promise<string | undefined>> };
const slugsOf = perHandle((): Slugs => ({ ids: new BoundedMap(MAX_ENTRIES), resolving: new Map() }));

function resolve(db: Db, slugs: Slugs, slug: string): Promise<string | undefined> {
  let pending = slugs.resolving.get(slug);
  if (!pending) {
    pending = asSystem(() => db.select({ id: companies.id }).from(companies).where(eq(companies.slug, slug)).limit(1))
      .then(([row]) => {
        if (row) slugs.ids.set(slug, row.id);
        return row?.id;
      })
      .finally(() => slugs.resolving.delete(slug));
    slugs.resolving.set(slug, pending);
  }
  return pending;
}

/**
 * The company whose portal answers at `slug`, for portal requests, as the database holds it at a
 * moment after this call began: every portal request needs it, so the row is kept in each process
 * while the company's `company` version stands (src/db/company-read-cache.ts; raised by any change
 * to the row, committed by any instance, the CLI or psql). Each entry is one company's own row, so no
 * company is ever answered with another's data. The row is frozen: requests share it.
 *
 * Filing does not trust the cached flags (AI triage, first-report milestone): the filing statement
 * reads them from the company row it writes against (src/modules/reports/file-report.ts).
 */
export async function findPortalCompany(db: Db, slug: string): Promise<Company | undefined> {
  const key = slug.toLowerCase();
  const slugs = slugsOf(db);
  const known = slugs.ids.get(key);
  const id = known ?? (await resolve(db, slugs, key));
  if (id === undefined) return undefined;
  const company = await rows.read(db, id);
  if (company || known === undefined) return company;
  // The company the slug named is gone (deleted in SQL); a new one may hold the slug now.
  slugs.ids.delete(key);
  return findPortalCompany(db, slug);
}

/** Counters for tests: rows answered from memory, rows loaded. */
export const portalCompanyCacheStats = rows.stats;
