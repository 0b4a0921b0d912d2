import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { type ComponentIn, findKnownVulns, type Found, type PackageOf } from './find-known-vulns.js';
import { openAwareness } from './awareness.js';
import { recordMatches } from './record-matches.js';

export type MatchTarget = { companyId: string; productId: string; productIdentifier: string; sbomId: string; now: Date };

/** Most new matches listed in one `vulnerability.matched` event; `total` says how many there were. */
export const EVENT_MATCH_LIST = 100;

/**
 * Matches an SBOM version, the latest of its product, against the advisory store and makes the
 * product's matches follow it (in the caller's transaction: the push and its matches commit
 * together). With `only`, just those packages are reconsidered (a feed update). New matches are
 * announced by one `vulnerability.matched` event per product and run, not one per match: a first
 * SBOM with hundreds of known vulnerabilities must not flood a receiver.
 */
export async function matchSbom(tx: Executor, target: MatchTarget, components: ComponentIn[], packages: PackageOf[], only?: ReadonlySet<string>) {
  const { found, stats } = await findKnownVulns(tx, components, packages, only);
  const recorded = await recordMatches(tx, target, found, only);
  await openAwareness(tx, target.now, { companyId: target.companyId, productId: target.productId });
  if (!only) {
    await tx.execute(sql`
      insert into sbom_match_runs (sbom_id, company_id, matched_at, components, matchable, unmatched)
      values (${target.sbomId}::uuid, ${target.companyId}::uuid, ${target.now.toISOString()}::timestamptz, ${stats.components}, ${stats.matchable}, ${JSON.stringify(stats.unmatched)}::jsonb)
      on conflict (sbom_id) do update set matched_at = excluded.matched_at, components = excluded.components, matchable = excluded.matchable, unmatched = excluded.unmatched`);
  }
  if (recorded.opened.length > 0) {
    await enqueueEvent(tx, target.companyId, 'vulnerability.matched', matchedEvent(target, recorded.opened), target.now);
  }
  return { stats, ...recorded };
}

function matchedEvent(target: MatchTarget, opened: Found[]): Record<string, unknown> {
  return {
    productIdentifier: target.productIdentifier,
    sbomId: target.sbomId,
    total: opened.length,
    matches: opened.slice(0, EVENT_MATCH_LIST).map((f) => ({
      vulnerability: f.vulnKey,
      ids: f.vulnIds,
      component: f.componentName,
      version: f.componentVersion,
      purl: f.componentPurl,
      fixedVersion: f.fixedVersion,
      kev: f.inKev,
    })),
  };
}
