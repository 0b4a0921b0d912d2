// Whether a version is inside an OSV `affected` entry, by the OSV schema's evaluation rules
// ("Evaluation" of the affected[].ranges section): events sorted in the ecosystem's order with the
// special `introduced: "0"` first; `introduced` opens, `fixed` closes at the version (the fixed one
// is not affected), `last_affected` closes after it (inclusive); `limit` bounds the whole range
// from above; an explicit `versions` list matches exactly; `GIT` ranges name commits, not versions,
// and are ignored here.
import { compareGo, compareSemver, type Compare, VERSION_ORDER } from './versions/index.js';

export type OsvEvent = { introduced?: string; fixed?: string; last_affected?: string; limit?: string };
export type OsvRange = { type: string; events: OsvEvent[] };
/** One `affected[]` entry as stored: ranges kept are SEMVER and ECOSYSTEM only. */
export type AffectedEntry = { type: string; ranges: OsvRange[]; versions: string[] };

/** affected: inside; clear: outside; unknown: a version could not be ordered in its ecosystem. */
export type Verdict = { state: 'affected'; fixed: string | null } | { state: 'clear' } | { state: 'unknown' };

function orderFor(rangeType: string, type: string): Compare | undefined {
  if (rangeType === 'SEMVER') return type === 'golang' ? compareGo : compareSemver;
  if (rangeType === 'ECOSYSTEM') return VERSION_ORDER[type];
  return undefined;
}

type Step = { kind: 'introduced' | 'fixed' | 'last_affected'; at: string };

/** One range: affected (with the lowest fix above the version), clear, or unknown. */
function inRange(version: string, range: OsvRange, cmp: Compare): Verdict {
  const limits: string[] = [];
  const steps: Step[] = [];
  for (const e of range.events) {
    if (e.introduced !== undefined) steps.push({ kind: 'introduced', at: e.introduced });
    else if (e.fixed !== undefined) steps.push({ kind: 'fixed', at: e.fixed });
    else if (e.last_affected !== undefined) steps.push({ kind: 'last_affected', at: e.last_affected });
    else if (e.limit !== undefined) limits.push(e.limit);
  }
  let failed = false;
  const c = (a: string, b: string): number => {
    const r = cmp(a, b);
    if (r === null) {
      failed = true;
      return 0;
    }
    return r;
  };
  const zero = (s: Step) => s.kind === 'introduced' && s.at === '0';
  steps.sort((a, b) => (zero(a) ? (zero(b) ? 0 : -1) : zero(b) ? 1 : c(a.at, b.at)));
  let affected = false;
  for (const s of steps) {
    if (s.kind === 'introduced') {
      if (zero(s) || c(version, s.at) >= 0) affected = true;
    } else if (s.kind === 'fixed') {
      if (c(version, s.at) >= 0) affected = false;
    } else if (c(version, s.at) > 0) affected = false;
  }
  if (affected && limits.length > 0 && !limits.some((l) => l === '*' || c(version, l) < 0)) affected = false;
  if (failed) return { state: 'unknown' };
  if (!affected) return { state: 'clear' };
  const fixes = steps.filter((s) => s.kind === 'fixed' && c(s.at, version) > 0).map((s) => s.at);
  fixes.sort(c);
  return { state: 'affected', fixed: fixes[0] ?? null };
}

/**
 * Evaluates a component version against one affected entry. Any range that says affected wins; an
 * exact entry of the `versions` list is affected too; a version the ecosystem cannot order is
 * unknown unless the list names it.
 */
export function evaluateAffected(version: string, entry: AffectedEntry): Verdict {
  let unknown = false;
  let best: Verdict | null = null;
  for (const range of entry.ranges) {
    const cmp = orderFor(range.type, entry.type);
    if (!cmp) continue;
    const v = inRange(version, range, cmp);
    if (v.state === 'unknown') unknown = true;
    else if (v.state === 'affected') {
      if (!best || (best.state === 'affected' && best.fixed === null)) best = v;
    }
  }
  if (best) return best;
  const eco = VERSION_ORDER[entry.type];
  const listed = entry.versions.some((x) => x === version || (eco !== undefined && eco(x, version) === 0));
  if (listed) return { state: 'affected', fixed: null };
  return unknown ? { state: 'unknown' } : { state: 'clear' };
}

/**
 * The version to upgrade to: the lowest fix any of the entries names above `version` that none of
 * them marks affected (a fix of one interval may sit inside another of the same flaw: drupal/core
 * 11.1.0 fixes 11.0.x and is affected itself, until 11.2.14), or null when there is none. The entries
 * are every `affected` entry of the flaw's records for the package, not only those that matched.
 */
export function safeFix(version: string, entries: readonly AffectedEntry[]): string | null {
  const type = entries[0]?.type;
  const order = type === undefined ? undefined : VERSION_ORDER[type];
  if (!order) return null;
  const candidates = new Set<string>();
  for (const e of entries)
    for (const r of e.ranges) for (const ev of r.events) if (ev.fixed !== undefined && (order(ev.fixed, version) ?? 0) > 0) candidates.add(ev.fixed);
  const sorted = [...candidates].sort((a, b) => order(a, b) ?? 0);
  return sorted.find((c) => entries.every((e) => evaluateAffected(c, e).state === 'clear' && !inWrittenInterval(c, e))) ?? null;
}

/**
 * Whether a version lies in an interval as the record writes it (an `introduced` and the next
 * `fixed` or `last_affected` after it). Events of overlapping intervals sort into an order where a
 * tie can close one interval as the next opens (PYSEC-2023-72: [3.1.1, 3.2.0) then [3.2.0, 3.2.2));
 * a fix offered must lie in none of them.
 */
function inWrittenInterval(version: string, entry: AffectedEntry): boolean {
  for (const range of entry.ranges) {
    const cmp = orderFor(range.type, entry.type);
    if (!cmp) continue;
    let open: string | null = null;
    for (const e of range.events) {
      if (e.introduced !== undefined) open = e.introduced;
      else if (open !== null && (e.fixed !== undefined || e.last_affected !== undefined)) {
        const from = open === '0' ? 0 : (cmp(version, open) ?? -1);
        const to = e.fixed !== undefined ? (cmp(version, e.fixed) ?? 1) < 0 : (cmp(version, e.last_affected!) ?? 1) <= 0;
        if (from >= 0 && to) return true;
        open = null;
      }
    }
  }
  return false;
}

/** A version as its ecosystem writes it for an upgrade: Go modules with their `v`, the Go toolchain as `go1.x.y`. */
export function ecosystemVersion(packageKey: string, version: string): string {
  if (!packageKey.startsWith('golang/') || /^(v|go)\d/.test(version)) return version;
  return packageKey === 'golang/stdlib' || packageKey === 'golang/toolchain' ? `go${version}` : `v${version}`;
}
