import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { selectRows, selectLargeRows } from '../../db/sql-rows.js';
import { param } from '../../kernel/evidence-store.js';
import { scoreCvss } from '../reports/cvss.js';
import { type AffectedEntry, ecosystemVersion, evaluateAffected, safeFix } from '../vulndb/affected.js';
import { type ComponentPackage, componentPackage, type Unmatchable } from '../vulndb/ecosystems.js';
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
  /** The record (of any in the flaw's alias group) whose vector gave the score. */
  cvssSource: string | null;
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

/**
 * The stored advisories (affected entries) of each package, one indexed lookup per chunk. A withdrawn
 * record has no entries (src/modules/vulndb/osv-store.ts) and each entry carries its record's
 * aliases, so the records table is read only for entries written without them (by the release
 * before, during a rolling upgrade; ADR 0029 addendum).
 */
export async function loadAffected(db: Executor, keys: readonly string[]): Promise<Map<string, EntryRow[]>> {
  const byPackage = new Map<string, EntryRow[]>();
  const unaliased: EntryRow[] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_QUERY) {
    const rows = await selectLargeRows<Omit<EntryRow, 'aliases'> & { aliases: string[] | null }>(
      db,
      sql`
      select a.record_id, a.package_key, a.type, a.release, a.ranges, a.versions, a.aliases from vulndb_affected a
      where a.package_key = any(${param(keys.slice(i, i + KEYS_PER_QUERY))}::text[])`,
    );
    for (const row of rows) {
      if (row.aliases === null) unaliased.push(row as EntryRow);
      const list = byPackage.get(row.package_key);
      if (list) list.push(row as EntryRow);
      else byPackage.set(row.package_key, [row as EntryRow]);
    }
  }
  if (unaliased.length > 0) {
    const ids = [...new Set(unaliased.map((r) => r.record_id))];
    const records = await selectRows<{ id: string; aliases: string[] }>(db, sql`select id, aliases from vulndb_records where id = any(${param(ids)}::text[])`);
    const aliasesOf = new Map(records.map((r) => [r.id, r.aliases]));
    for (const row of unaliased) row.aliases = aliasesOf.get(row.record_id) ?? [];
  }
  return byPackage;
}

export type Described = { id: string; aliases: string[]; summary: string | null; severity: { type: string; score: string }[] };

/**
 * The records (withdrawn ones left out) whose id is one of `ids` or who name one of them as an
 * alias, with what the team reads of them. Many records (PyPI's among them) have details but no
 * summary: their first 400 characters stand in.
 */
export async function aliasGroupRecords(db: Executor, ids: readonly string[]): Promise<Described[]> {
  // One primary-key scan of the ids and of the records naming one of them as an alias (one index
  // probe per id): `id = any(ids) or aliases && ids` was a scan of the whole store checking each
  // row against every id (7 s at 20,000 records and 4,400 ids; ADR 0029). Thousands of rows for a
  // large SBOM: read as selectLargeRows reads them.
  return selectLargeRows<Described>(
    db,
    sql`
    select r.id, r.aliases, coalesce(nullif(r.summary, ''), left(r.details, 400)) as summary, r.severity from vulndb_records r
    where r.withdrawn is null and r.id = any(${param([...ids])}::text[] || array(
      select a.id from unnest(${param([...ids])}::text[]) as k(id) join vulndb_records a on a.aliases @> array[k.id]))`,
  );
}

/**
 * Fills in what the team reads about each flaw found: the summary from the records that matched,
 * the highest CVSS from any record of its alias group (a GHSA record often scores a CVE its PyPI
 * or Go record leaves unscored), with the record it came from.
 */
export async function describeFound(db: Executor, found: Found[]): Promise<void> {
  const ids = [...new Set(found.flatMap((f) => f.vulnIds))];
  if (ids.length === 0) return;
  const rows = await aliasGroupRecords(db, ids);
  const byId = new Map<string, Described[]>();
  for (const r of rows)
    for (const k of new Set([r.id, ...r.aliases])) {
      const list = byId.get(k);
      if (list) list.push(r);
      else byId.set(k, [r]);
    }
  // Scored once per call: many records carry the same vector.
  const scored = new Map<string, number | null>();
  for (const f of found) {
    const group = [...new Set(f.vulnIds.flatMap((id) => byId.get(id) ?? []))];
    const matched = f.recordIds.map((id) => group.find((r) => r.id === id)).filter((r) => r !== undefined);
    const cvss = bestCvss(group, scored);
    f.summary = firstSentence(matched.map((r) => r.summary).find((x) => x) ?? null);
    f.cvssScore = cvss?.score ?? null;
    f.cvssVector = cvss?.vector ?? null;
    f.cvssSource = cvss?.source ?? null;
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
    const hits: { row: EntryRow }[] = [];
    let undecided = false;
    const rows = (byPackage.get(pkg.packageKey) ?? []).filter((row) => row.release === null || row.release === pkg.release);
    for (const row of rows) {
      const v = evaluateAffected(pkg.version, { type: row.type, ranges: row.ranges, versions: row.versions });
      if (v.state === 'affected') hits.push({ row });
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
        fixedVersion: fixOf(pkg, group.ids, rows),
        // Filled in by describeFound from the matching records only.
        summary: null,
        cvssScore: null,
        cvssVector: null,
        cvssSource: null,
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

/**
 * The version that clears the flaw: judged against every entry of the package in any record of the
 * flaw's alias group (also the entries that did not match the installed version), written as the
 * ecosystem writes it.
 */
function fixOf(pkg: ComponentPackage, ids: readonly string[], rows: readonly EntryRow[]): string | null {
  const group = new Set(ids);
  const entries = rows
    .filter((r) => group.has(r.record_id) || r.aliases.some((a) => group.has(a)))
    .map((r) => ({ type: r.type, ranges: r.ranges, versions: r.versions }));
  const fix = safeFix(pkg.version, entries);
  return fix === null ? null : ecosystemVersion(pkg.packageKey, fix);
}

/** The highest CVSS base score among the records' vectors (3.0 is scored with 3.1's formulas), and its record. */
function bestCvss(records: readonly Described[], scored: Map<string, number | null>): { score: number; vector: string; source: string } | null {
  let best: { score: number; vector: string; source: string } | null = null;
  for (const rec of [...records].sort((a, b) => a.id.localeCompare(b.id)))
    for (const s of rec.severity) {
      if (!/^CVSS_V[34]$/.test(s.type)) continue;
      const score = scored.has(s.score) ? scored.get(s.score)! : baseScoreOf(s.score);
      scored.set(s.score, score);
      if (score !== null && (!best || score > best.score)) best = { score, vector: s.score, source: rec.id };
    }
  return best;
}

function baseScoreOf(vector: string): number | null {
  try {
    return scoreCvss(vector.replace(/^CVSS:3\.0\//, 'CVSS:3.1/')).baseScore;
  } catch {
    // A vector the calculator refuses carries no score; the record still matches.
    return null;
  }
}
