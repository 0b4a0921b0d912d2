// Which package a component is and which package an OSV record names, as one key both sides
// compute the same way: `<purl type>/<namespace>/<name>`, normalised per the purl specification and
// each registry's own name rules. Components are matched by this key only, never by a guessed CPE.
import type { PackageURL } from 'packageurl-js';
import { parsePackageUrl } from '../../kernel/package-url.js';

/** OSV ecosystem (before any `:release` suffix) → purl type, for the ecosystems Cradle matches. */
export const OSV_ECOSYSTEMS: Readonly<Record<string, string>> = {
  npm: 'npm',
  PyPI: 'pypi',
  Maven: 'maven',
  Go: 'golang',
  'crates.io': 'cargo',
  NuGet: 'nuget',
  RubyGems: 'gem',
  Packagist: 'composer',
  Debian: 'deb',
};

const DEBIAN_CODENAMES: Readonly<Record<string, string>> = {
  jessie: '8',
  stretch: '9',
  buster: '10',
  bullseye: '11',
  bookworm: '12',
  trixie: '13',
  forky: '14',
};

/** PEP 503: runs of `-`, `_` and `.` are one `-`, case does not count. */
const pypiName = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

function key(type: string, namespace: string | undefined, name: string): string {
  switch (type) {
    case 'pypi':
      return `pypi/${pypiName(name)}`;
    case 'npm':
      return `npm/${namespace ? `${namespace.toLowerCase()}/` : ''}${name.toLowerCase()}`;
    case 'nuget':
    case 'cargo':
      return `${type}/${name.toLowerCase()}`;
    case 'composer':
      return `composer/${(namespace ?? '').toLowerCase()}/${name.toLowerCase()}`;
    case 'deb':
      return `deb/debian/${name.toLowerCase()}`;
    default:
      // Maven coordinates, Go module paths and gem names are case-sensitive.
      return `${type}/${namespace ? `${namespace}/` : ''}${name}`;
  }
}

export type OsvPackage = {
  /** The match key. */
  packageKey: string;
  /** purl type: selects the version order. */
  type: string;
  /** A distribution release the record is limited to (Debian `Debian:11` → `11`), or null. */
  release: string | null;
};

/** The key of an OSV `affected[].package`, or null for an ecosystem Cradle does not match. */
export function osvPackage(ecosystem: string, name: string): OsvPackage | null {
  const [base, release] = splitOnce(ecosystem, ':');
  const type = OSV_ECOSYSTEMS[base];
  if (!type || name.trim() === '') return null;
  if (type === 'maven') {
    const [group, artifact] = splitOnce(name, ':');
    if (!artifact) return null;
    return { packageKey: key(type, group, artifact), type, release: null };
  }
  if (type === 'npm' || type === 'composer') {
    const slash = name.lastIndexOf('/');
    const ns = slash > 0 ? name.slice(0, slash) : undefined;
    return { packageKey: key(type, ns, name.slice(slash + 1)), type, release: null };
  }
  if (type === 'golang') return { packageKey: `golang/${name}`, type, release: null };
  if (type === 'deb') return { packageKey: key(type, 'debian', name), type, release: release ? release.split('.')[0]! : null };
  return { packageKey: key(type, undefined, name), type, release: null };
}

export type ComponentPackage = OsvPackage & { version: string };

/** Why a component cannot be matched (shown and counted, never dropped silently). */
export type Unmatchable = { reason: 'no-purl' | 'invalid-purl' | 'no-version' | 'unsupported-ecosystem' | 'no-distribution' };

/** The key and version of a component's purl, or why it cannot be matched. */
export function componentPackage(purl: string | null | undefined, fallbackVersion?: string | null): ComponentPackage | Unmatchable {
  if (!purl) return { reason: 'no-purl' };
  let p: PackageURL;
  try {
    p = parsePackageUrl(purl);
  } catch {
    return { reason: 'invalid-purl' };
  }
  const version = p.version ?? fallbackVersion ?? undefined;
  if (!Object.values(OSV_ECOSYSTEMS).includes(p.type)) return { reason: 'unsupported-ecosystem' };
  if (!version) return { reason: 'no-version' };
  if (p.type === 'golang') {
    const path = p.namespace ? `${p.namespace}/${p.name}` : p.name;
    return { packageKey: `golang/${path}`, type: 'golang', release: null, version };
  }
  if (p.type === 'deb') {
    if ((p.namespace ?? '').toLowerCase() !== 'debian') return { reason: 'unsupported-ecosystem' };
    const release = debianRelease(p.qualifiers?.distro);
    if (!release) return { reason: 'no-distribution' };
    const source = p.qualifiers?.upstream?.split('@')[0] || p.name;
    return { packageKey: key('deb', 'debian', source), type: 'deb', release, version };
  }
  return { packageKey: key(p.type, p.namespace, p.name), type: p.type, release: null, version };
}

/** `debian-11`, `debian-11.6`, `bullseye` → `11`. */
function debianRelease(distro: string | undefined): string | null {
  if (!distro) return null;
  const d = distro.toLowerCase();
  const m = /^(?:debian-)?(\d+)(?:\.\d+)*$/.exec(d);
  if (m) return m[1]!;
  return DEBIAN_CODENAMES[d.replace(/^debian-/, '')] ?? null;
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}
