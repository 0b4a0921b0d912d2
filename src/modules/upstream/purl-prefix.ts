import type { PackageURL } from 'packageurl-js';
import { newPackageUrl, parsePackageUrl } from '../../kernel/package-url.js';

export const MAX_PREFIXES = 100;

/** A package URL without its version, qualifiers and subpath, in packageurl-js's canonical spelling. */
export function packageOf(purl: string): string | null {
  try {
    const p = parsePackageUrl(purl);
    return newPackageUrl(p.type, p.namespace, p.name, undefined, undefined, undefined).toString();
  } catch {
    return null;
  }
}

/**
 * A declared prefix in canonical form: a whole package (`pkg:npm/%40acme/widget`, no version,
 * qualifiers or subpath), or a namespace ending in `/` (`pkg:maven/com.acme/`), which claims every
 * package under it. A bare type (`pkg:npm/`) is refused: no company maintains an ecosystem.
 */
export function canonicalPrefix(raw: string): { ok: true; prefix: string } | { ok: false; message: string } {
  const s = raw.trim();
  if (!/^pkg:[a-zA-Z][a-zA-Z0-9.+-]*\/./.test(s)) return { ok: false, message: 'a package URL starts with pkg:<type>/ followed by a namespace or name' };
  if (s.endsWith('/')) {
    // Parsed with a stand-in name, so packageurl-js checks the type and namespace and spells them canonically.
    const whole = packageOf(`${s}x`);
    if (!whole || !whole.endsWith('/x')) return { ok: false, message: 'not a valid package URL namespace' };
    const prefix = whole.slice(0, -1);
    if (/^pkg:[^/]+\/$/.test(prefix)) return { ok: false, message: 'name a namespace, not a whole ecosystem' };
    return { ok: true, prefix };
  }
  let p: PackageURL;
  try {
    p = parsePackageUrl(s);
  } catch (e) {
    return { ok: false, message: `not a valid package URL (${(e as Error).message.slice(0, 120)})` };
  }
  if (p.version || (p.qualifiers && Object.keys(p.qualifiers).length > 0) || p.subpath) {
    return { ok: false, message: 'declare the package without version, qualifiers or subpath' };
  }
  return { ok: true, prefix: newPackageUrl(p.type, p.namespace, p.name, undefined, undefined, undefined).toString() };
}

/** Whether a declared prefix covers a package URL (both canonical: `packageOf` of the purl). */
export const prefixCovers = (prefix: string, pkg: string): boolean => (prefix.endsWith('/') ? pkg.startsWith(prefix) : pkg === prefix);
