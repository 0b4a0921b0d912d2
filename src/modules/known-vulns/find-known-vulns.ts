import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { param } from '../../kernel/evidence-store.js';
import { scoreCvss } from '../triage/cvss.js';
import { type AffectedEntry, evaluateAffected } from '../vulndb/affected.js';
import { type ComponentPackage, componentPackage, type Unmatchable } from '../vulndb/ecosystems.js';
import { VERSION_ORDER } from '../vulndb/versions/index.js';
import { groupByAlias, vulnKeyOf } from './alias-groups.js';

export type ComponentIn = { name: string; version: string | null; purl: string | null };
export type PackageOf = ComponentPackage | Unmatchable;

/** One flaw in one component version: every record and alias of it, and the version that fixes it. */
export type Found = {
  vulnKey: string;
  vulnIds: string[];
  recordIds: string[];
  packageKey: string;
  componentName: string;
  componentVersion: string;
  componentPurl: string;
  fixedVersion: string | null;
  summary: string | null;
  cvssScore: number | null;
  cvssVector: string | null;
  /** One of its CVEs is in the CISA KEV catalog. */
  inKev: boolean;
};

export type MatchStats = { components: number; matchable: number; unmatched: Record<string, number> };

export type EntryRow = {
  record_id: string;
  package_key: string;
  type: string;
  release: string | null;
  ranges: AffectedEntry['ranges'];
  versions: string[];
  aliases: string[];
};

/** The package key and version of each component (the CPU part: run before any transaction opens). */
export const packagesOf = (components: ComponentIn[]): PackageOf[] => components.map((c) => componentPackage(c.purl, c.version));

/** The distinct package keys of matchable components, only those in `only` when given. */
export const packageKeysOf = (packages: PackageOf[], only?: ReadonlySet<string>): string[] => [
  ...new Set(packages.flatMap((p) => ('reason' in p || (only && !only.has(p.packageKey)) ? [] : [p.packageKey]))),
];

const KEYS_PER_QUERY = 5000;

/** The stored advisories (affected entries, withdrawn ones left out) of each package, one indexed lookup per chunk. */
export async function loadAffected(db: Executor, keys: readonly string[]): Promise<Map<string, EntryRow[]>> {
  const byPackage = new Map<string, EntryRow[]>();
  for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
    const rows = await selectRows<EntryRow>(
      db,
      sql`
      select a.record_id, a.package_key, a.type, a.release, a.ranges, a.versions, r.aliases
      from vulndb_affected a join vulndb_records r on r.id = a.record_id
      where a.package_key = any(${param(keys.slice(i, i + KEYS_PER_QUERY))}::text[]) and r.withdrawn is null`,
    );
    for (const row of rows) {
      const list = byPackage.get(row.package_key);
      if (list) list.push(row);
      else byPackage.set(row.package_key, [row]);
    }
  }
  return byPackage;
}

/**
 * Fills in what the team reads about each flaw found (summary, highest CVSS), from the records
 * that matched only: the lookup of every package's advisories carries just what evaluation needs
 * (most records of a package do not match its version).
 */
export async function describeFound(db: Executor, found: Found[]): Promise<void> {
  const ids = [...new Set(found.flatMap((f) => f.recordIds))];
  if (ids.length === 0) return;
  // Many records (PyPI's among them) have details but no summary: their first sentence stands in.
  const rows = await selectRows<{ id: string; summary: string | null; severity: { type: string; score: string }[] }>(
    db,
    sql`
    select id, coalesce(nullif(summary, ''), left(details, 400)) as summary, severity from vulndb_records where id = any(${param(ids)}::text[])`,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const f of found) {
    const records = f.recordIds.map((id) => byId.get(id)).filter((r) => r !== undefined);
    const cvss = bestCvss(records.flatMap((r) => r.severity));
    f.summary = firstSentence(records.map((r) => r.summary).find((x) => x) ?? null);
    f.cvssScore = cvss?.score ?? null;
    f.cvssVector = cvss?.vector ?? null;
  }
}

/** A summary line: the text up to its first sentence end, at most 200 characters. */
function firstSentence(text: string | null): string | null {
  if (!text) return null;
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  const cut = end >= 0 && end < 200 ? flat.slice(0, end + 1) : flat.slice(0, 200);
  return cut.length < flat.length && !/[.!?]$/.test(cut) ? `${cut}…` : cut;
}

/** Marks each flaw found whose CVEs include one in the CISA KEV catalog (one lookup for all). */
export async function markKev(db: Executor, found: Found[]): Promise<void> {
  const cves = [...new Set(found.flatMap((f) => f.vulnIds.filter((i) => i.startsWith('CVE-'))))];
  if (cves.length === 0) return;
  const kev = new Set(
    (await selectRows<{ cve_id: string }>(db, sql`select cve_id from vulndb_kev where cve_id = any(${param(cves)}::text[])`)).map((r) => r.cve_id),
  );
  for (const f of found) f.inKev = f.vulnIds.some((i) => kev.has(i));
}

/**
 * Evaluates components against the advisories of their packages (`byPackage`, from loadAffected):
 * the range rules in each ecosystem's order, records of one flaw merged by their aliases. `only`
 * restricts the work to some packages (a feed update re-matches only those). Pure: no database.
 */
export function evaluateComponents(
  components: ComponentIn[],
  packages: PackageOf[],
  byPackage: ReadonlyMap<string, EntryRow[]>,
  only?: ReadonlySet<string>,
): { found: Found[]; stats: MatchStats } {
  const stats: MatchStats = { components: components.length, matchable: 0, unmatched: {} };
  const distinct = distinctPackages(components, packages, stats, only);
  const found: Found[] = [];
  let unknown = 0;
  for (const { pkg, component } of distinct.values()) {
    const hits: { row: EntryRow; fixed: string | null }[] = [];
    let undecided = false;
    for (const row of byPackage.get(pkg.packageKey) ?? []) {
      if (row.release !== null && row.release !== pkg.release) continue;
      const v = evaluateAffected(pkg.version, { type: row.type, ranges: row.ranges, versions: row.versions });
      if (v.state === 'affected') hits.push({ row, fixed: v.fixed });
      else if (v.state === 'unknown') undecided = true;
    }
    if (undecided && hits.length === 0) unknown++;
    for (const group of groupByAlias(hits.map((h) => ({ id: h.row.record_id, aliases: h.row.aliases, item: h })))) {
      found.push({
        vulnKey: vulnKeyOf(group.ids),
        vulnIds: group.ids,
        recordIds: [...new Set(group.items.map((h) => h.row.record_id))].sort(),
        packageKey: pkg.packageKey,
        componentName: component.name,
        componentVersion: pkg.version,
        componentPurl: component.purl ?? '',
        fixedVersion: highestFix(
          pkg.type,
          group.items.map((h) => h.fixed),
        ),
        // Filled in by describeFound from the matching records only.
        summary: null,
        cvssScore: null,
        cvssVector: null,
        inKev: false,
      });
    }
  }
  if (unknown > 0) stats.unmatched['version-not-comparable'] = unknown;
  return { found, stats };
}

/** One component per package, release and version (the first named in the document). */
function distinctPackages(components: ComponentIn[], packages: PackageOf[], stats: MatchStats, only?: ReadonlySet<string>) {
  const distinct = new Map<string, { pkg: ComponentPackage; component: ComponentIn }>();
  packages.forEach((pkg, i) => {
    if ('reason' in pkg) {
      stats.unmatched[pkg.reason] = (stats.unmatched[pkg.reason] ?? 0) + 1;
      return;
    }
    stats.matchable++;
    if (only && !only.has(pkg.packageKey)) return;
    const id = `${pkg.packageKey}\u0000${pkg.release ?? ''}\u0000${pkg.version}`;
    if (!distinct.has(id)) distinct.set(id, { pkg, component: components[i]! });
  });
  return distinct;
}

/** Matches one SBOM's components against the advisory store (lookup, evaluation, KEV marks). */
export async function findKnownVulns(
  db: Executor,
  components: ComponentIn[],
  packages: PackageOf[],
  only?: ReadonlySet<string>,
): Promise<{ found: Found[]; stats: MatchStats }> {
  const result = evaluateComponents(components, packages, await loadAffected(db, packageKeysOf(packages, only)), only);
  await describeFound(db, result.found);
  await markKev(db, result.found);
  return result;
}

/** Of the fixes the records of one flaw name, the highest: upgrading to it clears every record. */
function highestFix(type: string, fixes: (string | null)[]): string | null {
  const order = VERSION_ORDER[type];
  let best: string | null = null;
  for (const f of fixes) {
    if (f === null) continue;
    if (best === null || (order?.(f, best) ?? 0) > 0) best = f;
  }
  return best;
}

/** The highest CVSS base score among the records' vectors (3.0 is scored with 3.1's formulas). */
function bestCvss(severity: { type: string; score: string }[]): { score: number; vector: string } | null {
  let best: { score: number; vector: string } | null = null;
  for (const s of severity) {
    if (!/^CVSS_V[34]$/.test(s.type)) continue;
    try {
      const r = scoreCvss(s.score.replace(/^CVSS:3\.0\//, 'CVSS:3.1/'));
      if (!best || r.baseScore > best.score) best = { score: r.baseScore, vector: s.score };
    } catch {
      // A vector the calculator refuses carries no score; the record still matches.
    }
  }
  return best;
}
