import { sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { perHandle } from './prepared.js';
import { keyStateVersion } from './schema/index.js';
import { asSystem } from './tenant-scope.js';
import { COMPANY_DOMAINS, type CompanyDomain } from './version-domains.js';

/**
 * The versions the in-process caches check before they answer from memory, as one read saw them:
 * the global `keys` domain and the company domains of the companies asked for (src/db/version-domains.ts,
 * ADR 0017). `seq` numbers the reads in the order they were issued, so a cache can ignore a result
 * that arrives after a later one's.
 */
export type VersionSnapshot = {
  readonly seq: number;
  /** The `keys` domain's version. */
  readonly keyState: number;
  /** The company's version of `domain` (0 until its first change); the company must have been asked for in `after`. */
  company(companyId: string, domain: CompanyDomain): number;
};

export type DataVersions = {
  /**
   * Versions read by a statement issued after this call began (the company's too, when named); on
   * the embedded database, the counts of notified changes as they are at the call (no statement).
   * Every call of one event-loop turn shares one statement, so under load one small read serves
   * many requests, and a request's authentication and its handler's cache check, though made in
   * different turns, ride on the reads of other requests rather than adding one each.
   */
  after(companyId?: string): Promise<VersionSnapshot>;
  /** Counters for tests and benchmarks: statements issued. */
  readonly stats: { reads: number };
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The channel the key-state triggers notify (migration 0006). */
const KEY_STATE_CHANNEL = 'cradle_key_state';
/** The channel raised data versions notify, as "{domain}:{company id}", in a session that asks (migration 0008). */
const DATA_VERSIONS_CHANNEL = 'cradle_data_versions';
/** The session setting that asks for DATA_VERSIONS_CHANNEL's notifications. */
export const NOTIFY_DATA_VERSIONS_SETTING = 'cradle.notify_data_versions';

type Listen = (channel: string, fn: (payload: string) => void) => Promise<() => Promise<void>>;
/** Per company (lower-case id), its domains' counts. */
type Counted = { keyState: number; companies: Map<string, Map<string, number>> };
const counted = new WeakMap<object, Counted>();

/**
 * The embedded database (one process holds it, one session): versions are counted from the
 * triggers' notifications instead of read. PGlite has one session, so a notification arrives with
 * the committing statement's own answer, before the committing code resumes, and the counts are current whenever
 * other code runs, and `after` answers without a statement. The counts are not the stored versions
 * (they start at 0 when the database is opened); they move exactly when those do, which is all a
 * cache compares. Call once, before the handle's first `after`; the session must ask for the
 * notifications (NOTIFY_DATA_VERSIONS_SETTING).
 */
export async function countNotifiedVersions(handle: Db, listen: Listen): Promise<void> {
  const counts: Counted = { keyState: 0, companies: new Map() };
  await listen(KEY_STATE_CHANNEL, () => {
    counts.keyState++;
  });
  await listen(DATA_VERSIONS_CHANNEL, (payload) => {
    const [domain, companyId] = payload.split(':');
    if (!domain || !companyId) return;
    let domains = counts.companies.get(companyId);
    if (!domains) counts.companies.set(companyId, (domains = new Map()));
    domains.set(domain, (domains.get(domain) ?? 0) + 1);
  });
  counted.set(handle, counts);
}

// One row: the key-state counter and, as one JSON object keyed "{domain}:{company id}", every domain
// version of the companies asked for (passed as one comma-separated text: a fixed statement text,
// prepared once per database; a company has at most one row per company domain).
const versionsQuery = perHandle((db) =>
  db
    .select({
      keyState: keyStateVersion.version,
      companies: sql<Record<string, number> | null>`(select json_object_agg(v.domain || ':' || v.company_id, v.version) from company_data_versions v
        where v.company_id = any(string_to_array(${sql.placeholder('companies')}, ',')::uuid[]))`,
    })
    .from(keyStateVersion)
    .prepare('cradle_data_versions'),
);

/** A snapshot answering the versions of the companies asked for (lower-case ids), and only those. */
function snapshot(seq: number, keyState: number, asked: Map<string, ReadonlyMap<string, number>>): VersionSnapshot {
  return {
    seq,
    keyState,
    company(companyId, domain) {
      // The database writes uuids in lower case; so are the ids asked for.
      const versions = asked.get(companyId.toLowerCase());
      if (versions === undefined) throw new Error(`version of company ${companyId} was not asked for in this read`);
      return versions.get(domain) ?? 0;
    },
  };
}

/** A company's domain versions out of the statement's JSON object. */
function versionsOf(row: Record<string, number>, companyId: string): Map<string, number> {
  return new Map(COMPANY_DOMAINS.map((d) => [d, Number(row[`${d}:${companyId}`] ?? 0)]));
}

/**
 * The shared version reader of a database handle. Reads run as Cradle's own cross-company code:
 * a turn's statement may carry several companies' versions, and the key state belongs to none.
 */
export const dataVersions = perHandle((handle): DataVersions => {
  const db = handle as Db;
  const stats = { reads: 0 };
  let issued = 0;
  // The statement collecting this turn's callers; once it is sent, later callers start the next
  // one (it must be issued after they began).
  let collecting: { companies: Set<string>; result: Promise<VersionSnapshot> } | undefined;

  function collect(): { companies: Set<string>; result: Promise<VersionSnapshot> } {
    if (collecting) return collecting;
    const companies = new Set<string>();
    const result = new Promise<void>((resolve) => setImmediate(resolve)).then(async (): Promise<VersionSnapshot> => {
      collecting = undefined;
      const seq = ++issued;
      stats.reads++;
      const [row] = await asSystem(() => versionsQuery(db).execute({ companies: [...companies].join(',') }));
      if (!row) throw new Error('key_state_version has no row: the database is not migrated');
      const versions = row.companies ?? {};
      return snapshot(seq, Number(row.keyState), new Map([...companies].map((id) => [id, versionsOf(versions, id)])));
    });
    collecting = { companies, result };
    return collecting;
  }

  const counts = counted.get(handle);
  return {
    stats,
    after(companyId) {
      // Checked here so that a bad id fails its own caller, not every request sharing the turn's read.
      if (companyId !== undefined && !UUID.test(companyId)) return Promise.reject(new Error(`not a company id: ${JSON.stringify(companyId).slice(0, 60)}`));
      if (counts) {
        // The counts as they are now (copied: they move on while the caller waits for its turn).
        const id = companyId?.toLowerCase();
        return Promise.resolve(snapshot(++issued, counts.keyState, new Map(id === undefined ? [] : [[id, new Map(counts.companies.get(id))]])));
      }
      const turn = collect();
      if (companyId !== undefined) turn.companies.add(companyId.toLowerCase());
      return turn.result;
    },
  };
});
