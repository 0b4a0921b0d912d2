import { and, eq, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { dataVersions } from '../../db/data-versions.js';
import { perHandle } from '../../db/prepared.js';
import { companyDataVersions } from '../../db/schema/index.js';
import { BoundedMap } from '../../kernel/bounded-map.js';
import { type EvidenceFacts, gatherFacts, READ_SNAPSHOT } from './gather-evidence.js';

/** Companies (times product filters) whose facts each process keeps; the oldest written go first. */
const MAX_ENTRIES = 256;

type Entry = { version: number; facts: EvidenceFacts };

const cacheOf = perHandle(() => new BoundedMap<string, Entry>(MAX_ENTRIES));

/** Counters for tests and benchmarks: reads answered from memory, reads that gathered. */
export const factsCacheStats = { hits: 0, misses: 0 };

const versionQuery = perHandle((db) =>
  db
    .select({ version: companyDataVersions.version })
    .from(companyDataVersions)
    .where(and(eq(companyDataVersions.companyId, sql.placeholder('companyId')), eq(companyDataVersions.domain, 'compliance')))
    .prepare('cradle_compliance_version'),
);

/** The company's compliance data version; 0 until its first change (ADR 0012). */
async function readVersion(db: Executor, companyId: string): Promise<number> {
  const [row] = await versionQuery(db).execute({ companyId });
  return row?.version ?? 0;
}

/** Facts are shared by every later hit: a reader that tried to change them would throw instead. */
function frozen(facts: EvidenceFacts): EvidenceFacts {
  for (const list of [facts.products, facts.notifiable, facts.filings, facts.attestations] as object[][]) {
    for (const item of list) Object.freeze(item);
    Object.freeze(list);
  }
  return Object.freeze(facts);
}

/**
 * A company's compliance facts (optionally one product's), from memory while the company's
 * compliance data version is the one they were gathered at, else gathered again (docs/adr/
 * 0012-compliance-result-cache.md). The version is raised at the commit of every transaction that
 * changes a row the gathering reads (database triggers), and it is read together with the facts in
 * one repeatable-read snapshot, so facts kept under version v are exactly what the database held
 * at v. A hit costs a share of one one-row read; nothing here depends on the clock (`snapshotAt` applies it).
 * What it returns is frozen: it is shared by every later hit.
 */
export async function readFacts(db: Db, companyId: string, productId: string | undefined): Promise<EvidenceFacts> {
  const cache = cacheOf(db);
  const key = `${companyId}/${productId ?? '*'}`;
  const kept = cache.get(key);
  // A hit checks the version with the turn's shared read (src/db/data-versions.ts), issued after this call.
  if (kept && (await dataVersions(db).after(companyId)).company(companyId) === kept.version) {
    factsCacheStats.hits++;
    return kept.facts;
  }
  factsCacheStats.misses++;
  const fresh = await db.transaction(async (tx) => ({ version: await readVersion(tx, companyId), facts: frozen(await gatherFacts(tx, companyId, productId)) }), READ_SNAPSHOT);
  // Two reads may gather concurrently: never replace newer facts with older ones.
  const current = cache.get(key);
  if (!current || current.version <= fresh.version) cache.set(key, fresh);
  return fresh.facts;
}
