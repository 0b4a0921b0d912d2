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
 * directories. Every root ends with `/`, so a set of them answers "which roots is this URI under"
 * by looking up the URI's own prefixes: the cost per result is the URI's depth, not the number of
 * roots (40,000 roots against 40,000 results once took 70 s of the event loop; issue 24).
 */
export function runRoots(run: Record<string, unknown>, sourceRoot: string | undefined): ReadonlySet<string> {
  const roots = new Set<string>();
  const add = (r: string | null) => r !== null && roots.add(r);
  add(asFilePrefix(sourceRoot ?? null));
  for (const base of Object.values(obj(run.originalUriBaseIds))) add(asFilePrefix(str(obj(base).uri)));
  for (const inv of arr(run.invocations)) add(asFilePrefix(str(obj(obj(inv).workingDirectory).uri)));
  return roots;
}

/** The longest root `uri` lies under (the most specific wins), or undefined. */
function longestRoot(uri: string, roots: ReadonlySet<string>): string | undefined {
  if (roots.size === 0) return undefined;
  for (let i = uri.lastIndexOf('/'); i >= 0; i = uri.lastIndexOf('/', i - 1)) {
    const prefix = uri.slice(0, i + 1);
    if (roots.has(prefix)) return prefix;
    if (i === 0) break;
  }
  return undefined;
}

/**
 * The artifact a result is about, as a path that does not depend on where CI checked the code out:
 * relative URIs stay as they are (prefixed by their `uriBaseId`), absolute `file:` URIs under a
 * known root lose the root. Absolute paths outside every root are kept whole.
 */
export function artifactOf(result: Record<string, unknown>, run: Record<string, unknown>, roots: ReadonlySet<string>): string | null {
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
  const root = longestRoot(uri, roots);
  if (root !== undefined) return uri.slice(root.length);
  return uri.replace(/^\.\//, '');
}
