import { arr, obj, str } from '../../kernel/json-access.js';

/** A directory as a `file://` URI prefix with one trailing slash, or null. */
function asFilePrefix(root: string | null): string | null {
  if (!root) return null;
  let u = root;
  if (u.startsWith('/')) u = `file://${u}`;
  else if (/^[A-Za-z]:[\\/]/.test(u)) u = `file:///${u.replace(/\\/g, '/')}`;
  if (!u.startsWith('file:')) return null;
  return u.endsWith('/') ? u : `${u}/`;
}

/**
 * The roots a run's absolute file URIs are made relative to: the pusher's `sourceRoot` (its CI
 * checkout directory), the run's own `originalUriBaseIds`, and the invocations' working
 * directories. Longest first, so the most specific root wins.
 */
export function runRoots(run: Record<string, unknown>, sourceRoot: string | undefined): string[] {
  const roots = [asFilePrefix(sourceRoot ?? null)];
  for (const base of Object.values(obj(run.originalUriBaseIds))) roots.push(asFilePrefix(str(obj(base).uri)));
  for (const inv of arr(run.invocations)) roots.push(asFilePrefix(str(obj(obj(inv).workingDirectory).uri)));
  return [...new Set(roots.filter((r): r is string => r !== null))].sort((a, b) => b.length - a.length);
}

/**
 * The artifact a result is about, as a path that does not depend on where CI checked the code out:
 * relative URIs stay as they are (prefixed by their `uriBaseId`), absolute `file:` URIs under a
 * known root lose the root. Absolute paths outside every root are kept whole.
 */
export function artifactOf(result: Record<string, unknown>, run: Record<string, unknown>, roots: string[]): string | null {
  const location = obj(arr(result.locations)[0]);
  const artifact = obj(obj(location.physicalLocation).artifactLocation);
  const indexed = typeof artifact.index === 'number' ? obj(obj(arr(run.artifacts)[artifact.index]).location) : {};
  const uri = str(artifact.uri) ?? str(indexed.uri);
  const base = str(artifact.uriBaseId) ?? str(indexed.uriBaseId);
  if (!uri) {
    // Results about a logical location only (a class, a package) name it instead.
    const logical = obj(arr(location.logicalLocations)[0]);
    return str(logical.fullyQualifiedName) ?? str(logical.name);
  }
  if (base) return `%${base}%/${uri.replace(/^\.\//, '')}`;
  for (const root of roots) if (uri.startsWith(root)) return uri.slice(root.length);
  return uri.replace(/^\.\//, '');
}
