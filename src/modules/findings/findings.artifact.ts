import { createHash } from 'node:crypto';
import { arr, obj, str } from '../../kernel/json-access.js';

/**
 * The artifact path kept per finding: at most this many characters and path segments. Longer or
 * deeper paths are cut, and the cut path ends with a digest of the whole, so two long paths that
 * share their first part stay two artifacts (docs/evidence.md "Limits").
 */
export const ARTIFACT_MAX_LENGTH = 1024;
export const ARTIFACT_MAX_DEPTH = 64;

/** A directory as a `file://` URI prefix with one trailing slash, or null. */
function asFilePrefix(root: string | null): string | null {
  if (!root) return null;
  let u = root;
  if (u.startsWith('/')) u = `file://${u}`;
  else if (/^[A-Za-z]:[\\/]/.test(u)) u = `file:///${u.replace(/\\/g, '/')}`;
  if (!u.startsWith('file:')) return null;
  return u.endsWith('/') ? u : `${u}/`;
}

/** Roots by path segment: a node is a root when a root's last segment ends there. */
type RootNode = { next: Map<string, RootNode>; root: boolean };
export type Roots = { size: number; top: RootNode };

/**
 * The roots a run's absolute file URIs are made relative to: the pusher's `sourceRoot` (its CI
 * checkout directory), the run's own `originalUriBaseIds`, and the invocations' working
 * directories, as a tree of path segments. Finding a URI's longest root walks the URI's own
 * segments once, at most ARTIFACT_MAX_DEPTH of them: the cost per result is bounded by that prefix
 * of the URI, whatever the number of roots (40,000 roots against 40,000 results once took 70 s,
 * issue 24) and whatever the URI's depth (a prefix copied per level once made it depth times
 * length: 1 MB of deep paths held a worker for 8-11 s, issue 33).
 */
export function runRoots(run: Record<string, unknown>, sourceRoot: string | undefined): Roots {
  const roots: Roots = { size: 0, top: { next: new Map(), root: false } };
  const add = (r: string | null) => {
    if (r === null) return;
    let node = roots.top;
    // Every root ends with '/': its segments are the parts before each slash.
    const parts = r.split('/');
    parts.pop();
    for (const part of parts) {
      let child = node.next.get(part);
      if (!child) node.next.set(part, (child = { next: new Map(), root: false }));
      node = child;
    }
    if (!node.root) roots.size++;
    node.root = true;
  };
  add(asFilePrefix(sourceRoot ?? null));
  for (const base of Object.values(obj(run.originalUriBaseIds))) add(asFilePrefix(str(obj(base).uri)));
  for (const inv of arr(run.invocations)) add(asFilePrefix(str(obj(obj(inv).workingDirectory).uri)));
  return roots;
}

/** The length of the longest root `uri` lies under (the most specific wins), or undefined. */
function longestRoot(uri: string, roots: Roots): number | undefined {
  if (roots.size === 0) return undefined;
  let node: RootNode | undefined = roots.top;
  let found: number | undefined;
  let start = 0;
  for (let depth = 0; depth < ARTIFACT_MAX_DEPTH; depth++) {
    const slash = uri.indexOf('/', start);
    if (slash < 0) break;
    node = node.next.get(uri.slice(start, slash));
    if (!node) break;
    start = slash + 1;
    if (node.root) found = start;
  }
  return found;
}

/** A path within ARTIFACT_MAX_LENGTH and ARTIFACT_MAX_DEPTH, and whether it had to be cut. */
function capped(path: string): { path: string; capped: boolean } {
  let end = Math.min(path.length, ARTIFACT_MAX_LENGTH);
  let slash = -1;
  for (let depth = 0; depth < ARTIFACT_MAX_DEPTH; depth++) {
    slash = path.indexOf('/', slash + 1);
    if (slash < 0 || slash >= end) break;
    if (depth === ARTIFACT_MAX_DEPTH - 1) end = slash;
  }
  if (end === path.length) return { path, capped: false };
  const digest = createHash('sha256').update(path).digest('hex').slice(0, 16);
  return { path: `${path.slice(0, end)}…#${digest}`, capped: true };
}

/**
 * The artifact a result is about, as a path that does not depend on where CI checked the code out:
 * relative URIs stay as they are (prefixed by their `uriBaseId`), absolute `file:` URIs under a
 * known root lose the root. Absolute paths outside every root are kept whole. Every path is cut to
 * the caps above (`capped` says when).
 */
export function artifactOf(result: Record<string, unknown>, run: Record<string, unknown>, roots: Roots): { path: string | null; capped: boolean } {
  const location = obj(arr(result.locations)[0]);
  const artifact = obj(obj(location.physicalLocation).artifactLocation);
  const indexed = typeof artifact.index === 'number' ? obj(obj(arr(run.artifacts)[artifact.index]).location) : {};
  const uri = str(artifact.uri) ?? str(indexed.uri);
  const base = str(artifact.uriBaseId) ?? str(indexed.uriBaseId);
  if (!uri) {
    // Results about a logical location only (a class, a package) name it instead.
    const logical = obj(arr(location.logicalLocations)[0]);
    const name = str(logical.fullyQualifiedName) ?? str(logical.name);
    return name === null ? { path: null, capped: false } : capped(name);
  }
  if (base) return capped(`%${base}%/${uri.replace(/^\.\//, '')}`);
  const root = longestRoot(uri, roots);
  if (root !== undefined) return capped(uri.slice(root));
  return capped(uri.replace(/^\.\//, ''));
}
