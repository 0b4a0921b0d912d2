import { companyReadCache } from '../../db/company-read-cache.js';
import type { Db } from '../../db/client.js';
import type { EvidenceFacts } from './evidence-snapshot.js';
import { gatherFactsConsistently } from './gather-evidence.js';

// Companies (times product filters) whose facts each process keeps; the oldest written go first.
const cache = companyReadCache('compliance facts', 'compliance', gatherFactsConsistently, { maxEntries: 256 });

/** Counters for tests and benchmarks: reads answered from memory, reads that gathered. */
export const factsCacheStats = cache.stats;

/**
 * A company's compliance facts (optionally one product's), from memory while the company's
 * `compliance` version (src/db/version-domains.ts) is the one they were gathered at, else gathered again in one
 * repeatable-read snapshot (docs/adr/0012-compliance-result-cache.md). The version is raised at the
 * commit of every transaction that changes a row the gathering reads (database triggers); the
 * company read cache (src/db/company-read-cache.ts) checks it with the turn's shared version read
 * and never serves facts older than the version read for the call. Nothing here depends on the
 * clock (`snapshotAt` applies it). What it returns is frozen: it is shared by every later hit.
 */
export function readFacts(db: Db, companyId: string, productId: string | undefined): Promise<EvidenceFacts> {
  return cache.read(db, companyId, productId);
}
