import { sql } from 'drizzle-orm';
import { sbomMatchRuns } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Executor } from '../../db/client.js';
import { enqueueEvents, type OutboxEvent } from '../webhooks/enqueue-event.js';
import {
  type ComponentIn,
  describeFound,
  type EntryRow,
  evaluateComponents,
  packageKeysOf,
  type Found,
  loadAffected,
  markKev,
  type PackageOf,
} from './find-known-vulns.js';
import { openAwareness } from './awareness.js';
import { recordMatchesMany } from './record-matches.js';

export type MatchTarget = { companyId: string; productId: string; productIdentifier: string; sbomId: string; now: Date };

/** Most new matches listed in one `vulnerability.matched` event; `total` says how many there were. */
export const EVENT_MATCH_LIST = 100;

export type MatchItem = { target: MatchTarget; components: ComponentIn[]; packages: PackageOf[]; only?: ReadonlySet<string> | undefined };

/** The reading half of a match: advisories looked up and evaluated, the flaws found described. */
export type Evaluated = ReturnType<typeof evaluateComponents>[];

/**
 * Reads what a match needs and evaluates it, writing nothing: the advisories of the items'
 * packages (or `byPackage`, when a feed update loaded them once for every SBOM), the range rules,
 * the flaws' summaries, scores and KEV marks. A deferred match runs it outside any transaction.
 */
export async function evaluateSboms(db: Executor, items: MatchItem[], byPackage?: ReadonlyMap<string, EntryRow[]>): Promise<Evaluated> {
  const loaded = byPackage ?? (await loadAffected(db, [...new Set(items.flatMap((i) => packageKeysOf(i.packages, i.only)))]));
  const evaluated = items.map((i) => evaluateComponents(i.components, i.packages, loaded, i.only));
  const found = evaluated.flatMap((e) => e.found);
  await describeFound(db, found);
  await markKev(db, found);
  return evaluated;
}

/**
 * Makes the products' matches follow evaluated SBOM versions, each the latest of its product (in
 * the caller's transaction), records each whole match's run, and announces new matches by one
 * `vulnerability.matched` event per product and run, not one per match: a first SBOM with hundreds
 * of known vulnerabilities must not flood a receiver.
 */
export async function recordEvaluated(tx: Executor, items: MatchItem[], evaluated: Evaluated) {
  const recorded = await recordMatchesMany(
    tx,
    items.map((i, n) => ({ target: i.target, found: evaluated[n]!.found, only: i.only })),
  );
  const withKev = items.filter((_, n) => evaluated[n]!.found.some((f) => f.inKev)).map((i) => i.target.productId);
  if (withKev.length > 0) await openAwareness(tx, items[0]!.target.now, { productIds: withKev });
  const events: OutboxEvent[] = [];
  for (const [n, i] of items.entries()) {
    const { stats } = evaluated[n]!;
    if (!i.only) {
      await tx.execute(sql`
        insert into ${sbomMatchRuns} (${sqlColumns(sbomMatchRuns, ['sbomId', 'companyId', 'matchedAt', 'components', 'matchable', 'unmatched'])})
        values (${i.target.sbomId}::uuid, ${i.target.companyId}::uuid, ${i.target.now.toISOString()}::timestamptz, ${stats.components}, ${stats.matchable}, ${JSON.stringify(stats.unmatched)}::jsonb)
        on conflict (sbom_id) do update set matched_at = excluded.matched_at, components = excluded.components, matchable = excluded.matchable, unmatched = excluded.unmatched`);
    }
    if (recorded[n]!.opened.length > 0)
      events.push({ companyId: i.target.companyId, type: 'vulnerability.matched', data: matchedEvent(i.target, recorded[n]!.opened), at: i.target.now });
  }
  await enqueueEvents(tx, events);
  return items.map((_, n) => ({ stats: evaluated[n]!.stats, ...recorded[n]! }));
}

/**
 * Matches SBOM versions, each the latest of its product, against the advisory store and makes the
 * products' matches follow them, in the caller's transaction (a push and its matches commit
 * together). With `only`, just those packages are reconsidered (a feed update).
 */
export async function matchSboms(tx: Executor, items: MatchItem[], byPackage?: ReadonlyMap<string, EntryRow[]>) {
  return recordEvaluated(tx, items, await evaluateSboms(tx, items, byPackage));
}

/** `matchSboms` for one SBOM. */
export async function matchSbom(tx: Executor, target: MatchTarget, components: ComponentIn[], packages: PackageOf[], only?: ReadonlySet<string>) {
  return (await matchSboms(tx, [{ target, components, packages, only }]))[0]!;
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
