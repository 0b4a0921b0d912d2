// One version order per ecosystem. A comparator answers null when a version is not one of its
// ecosystem: the range evaluator then leaves that component unmatched and says why, rather than
// guessing an order.
import pep440 from '@renovatebot/pep440';
import semver from 'semver';
import { BoundedMap } from '../../../kernel/bounded-map.js';
import { compareDebian } from './debian.js';
import { comparePackagist, compareNuget } from './dotted.js';
import { compareMaven } from './maven.js';
import { compareRpm } from './rpm.js';
import { compareRubyGems } from './rubygems.js';

export type Compare = (a: string, b: string) => number | null;

/**
 * Parsed versions, remembered: matching compares each component version with every event of its
 * package's advisories, and sorting events compares them again, so one SBOM parses the same few
 * thousand strings many times. Bounded, oldest forgotten.
 */
const parsed = new BoundedMap<string, semver.SemVer | null>(50_000);

function semverOf(v: string): semver.SemVer | null {
  const known = parsed.get(v);
  if (known !== undefined) return known;
  const p = semver.parse(v.trim().replace(/^v/, ''), { loose: true });
  parsed.set(v, p);
  return p;
}

/** SemVer 2.0 precedence (OSV `SEMVER` ranges, npm, crates.io). */
export const compareSemver: Compare = (a, b) => {
  const x = semverOf(a);
  const y = semverOf(b);
  // On the parsed objects: semver.compare(x, y) parses both again (their loose flag differs from its own).
  return x && y ? x.compare(y) : null;
};

/**
 * Go module versions are SemVer with a `v`; the toolchain's (`stdlib`) are `go1.21` or `1.21.3`,
 * which miss parts SemVer requires: the missing minor or patch is zero.
 */
export const compareGo: Compare = (a, b) => compareSemver(goSemver(a), goSemver(b));

function goSemver(v: string): string {
  const s = v.trim().replace(/^go/, '').replace(/^v/, '');
  const m = /^(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)$/.exec(s);
  if (!m) return s;
  const rest = m[4] ?? '';
  // Go release candidates are written go1.21rc2: a SemVer pre-release.
  const pre = /^(rc|beta)\d+$/.test(rest) ? `-${rest}` : rest;
  return `${m[1]}.${m[2] ?? 0}.${m[3] ?? 0}${pre}`;
}

/** PEP 440 (PyPI). */
export const comparePep440: Compare = (a, b) => {
  if (!pep440.valid(a) || !pep440.valid(b)) return null;
  return pep440.compare(a, b);
};

/** The order of each ecosystem, by purl type (the key Cradle matches components with). */
export const VERSION_ORDER: Readonly<Record<string, Compare>> = {
  npm: compareSemver,
  cargo: compareSemver,
  golang: compareGo,
  pypi: comparePep440,
  maven: compareMaven,
  nuget: compareNuget,
  gem: compareRubyGems,
  composer: comparePackagist,
  deb: compareDebian,
  rpm: compareRpm,
};
