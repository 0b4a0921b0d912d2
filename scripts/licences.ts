// `npm run lint:licences` (part of `npm run lint`): walks the production dependency tree as
// installed (node_modules, Node's resolution from each package's folder), reads each package's
// declared licence, and fails naming every package whose licence is not known to be compatible with
// Cradle's Apache-2.0 (docs/licences.md says which and why). `--write` regenerates docs/licences.md;
// without it the check also fails when that list is stale.
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Permissive licences: code under them may be shipped inside an Apache-2.0 work. */
export const permissiveLicences = new Set([
  '0BSD',
  'Apache-2.0',
  'BlueOak-1.0.0',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'CC0-1.0',
  'ISC',
  'MIT',
  'MIT-0',
  'Python-2.0',
  'Unlicense',
]);

/**
 * Weak-copyleft licences accepted for one named package each, reviewed by hand: used unmodified as
 * a separate package, which the licence allows any program to do (docs/licences.md).
 */
export const reviewedExceptions: Record<string, string> = { openpgp: 'LGPL-3.0+' };

export type InstalledPackage = { name: string; version: string; licence: string; dir: string };

type Manifest = {
  name?: string;
  version?: string;
  license?: unknown;
  licenses?: unknown;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
}

function declaredLicence(m: Manifest): string {
  const one = (l: unknown): string | undefined =>
    typeof l === 'string' ? l : l && typeof l === 'object' && typeof (l as { type?: unknown }).type === 'string' ? (l as { type: string }).type : undefined;
  const direct = one(m.license);
  if (direct) return direct;
  if (Array.isArray(m.licenses)) {
    const all = m.licenses.map(one).filter((l): l is string => !!l);
    if (all.length > 0) return all.length === 1 ? all[0]! : `(${all.join(' OR ')})`;
  }
  return 'UNKNOWN';
}

/** Node's resolution: the nearest node_modules/<name> from `from` up to the project root. */
function resolvePackage(name: string, from: string, root: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return realpathSync(candidate);
    if (dir === root || !dir.startsWith(root)) return undefined;
  }
}

/** Every package the production tree of the project at `root` loads (dev dependencies left out). */
export function productionPackages(root: string): InstalledPackage[] {
  const rootManifest = readManifest(root);
  const seen = new Map<string, InstalledPackage>();
  const missing: string[] = [];
  const visit = (deps: Record<string, string> | undefined, from: string, optional: boolean) => {
    for (const name of Object.keys(deps ?? {})) {
      const dir = resolvePackage(name, from, root);
      if (!dir) {
        if (!optional) missing.push(`${name} (needed by ${relative(root, from) || 'the project'})`);
        continue;
      }
      if (seen.has(dir)) continue;
      const m = readManifest(dir);
      seen.set(dir, { name: m.name ?? name, version: m.version ?? '?', licence: declaredLicence(m), dir: relative(root, dir).split(sep).join('/') });
      visit(m.dependencies, dir, false);
      visit(m.optionalDependencies, dir, true);
      visit(m.peerDependencies, dir, true);
    }
  };
  visit(rootManifest.dependencies, root, false);
  visit(rootManifest.optionalDependencies, root, true);
  if (missing.length > 0) throw new Error(`not installed: ${missing.join(', ')}; run npm ci`);
  return [...seen.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/**
 * Whether an SPDX expression is acceptable: an OR needs one acceptable side, an AND both; a `+`
 * or `-or-later` suffix is read as the licence itself.
 */
export function licenceAllowed(expression: string, packageName: string): boolean {
  const tokens = expression.replace(/[()]/g, ' $& ').trim().split(/\s+/);
  let at = 0;
  const atom = (): boolean => {
    const t = tokens[at++];
    if (t === '(') {
      const v = or();
      at++;
      return v;
    }
    if (!t) return false;
    if (reviewedExceptions[packageName] === t) return true;
    return permissiveLicences.has(t.replace(/(\+|-or-later)$/, ''));
  };
  const and = (): boolean => {
    let v = atom();
    while (tokens[at] === 'AND') {
      at++;
      v = atom() && v;
    }
    return v;
  };
  const or = (): boolean => {
    let v = and();
    while (tokens[at] === 'OR') {
      at++;
      v = and() || v;
    }
    return v;
  };
  const result = or();
  return result && at === tokens.length;
}

export function licenceList(packages: InstalledPackage[]): string {
  const byLicence = new Map<string, string[]>();
  for (const p of packages) byLicence.set(p.licence, [...(byLicence.get(p.licence) ?? []), `${p.name}@${p.version}`]);
  const rows = [...byLicence.entries()]
    .sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))
    .map(([licence, names]) => `| ${licence} | ${names.length} | ${names.join(', ')} |`);
  return [
    '<!-- Generated by `node --import ./scripts/ts-hooks.mjs scripts/licences.ts --write`; `npm run lint` fails when it is stale. -->',
    '| licence | packages | name@version |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}

const begin = '<!-- licences:begin -->';
const end = '<!-- licences:end -->';

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = dirname(dirname(fileURLToPath(import.meta.url)));
  const packages = productionPackages(root);
  const refused = packages.filter((p) => !licenceAllowed(p.licence, p.name));
  for (const p of refused) console.error(`licence not compatible with Apache-2.0 (or not reviewed): ${p.name}@${p.version} (${p.dir}): ${p.licence}`);
  const docFile = join(root, 'docs', 'licences.md');
  const doc = readFileSync(docFile, 'utf8');
  const from = doc.indexOf(begin);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${docFile} lacks the ${begin} ... ${end} markers`);
  const fresh = `${doc.slice(0, from + begin.length)}\n${licenceList(packages)}\n${doc.slice(to)}`;
  if (process.argv.includes('--write')) writeFileSync(docFile, fresh);
  else if (fresh !== doc) {
    console.error('docs/licences.md does not list the installed production dependencies: run `npm run licences:write`');
    process.exitCode = 1;
  }
  if (refused.length > 0) process.exitCode = 1;
  else console.log(`licences: ${packages.length} production packages, all compatible with Apache-2.0`);
}
