import type { NormalComponent } from './sboms.normalised.js';

/** The fields a diff compares; a subset of NormalComponent, so stored rows can be diffed too. */
export type DiffComponent = Pick<NormalComponent, 'group' | 'name' | 'version' | 'purl' | 'cpe' | 'licenses' | 'hashes' | 'supplier'>;

export type ComponentRef = { name: string; version: string | null; purl: string | null };
export type ComponentChange = { before: ComponentRef; after: ComponentRef; fields: string[] };
export type SbomDiff = { added: ComponentRef[]; removed: ComponentRef[]; changed: ComponentChange[] };

/**
 * Identity across versions: the package URL without its version, qualifiers and subpath
 * (`pkg:npm/%40scope/name`), else the group and name. A version bump of the same package is then
 * one "changed" entry, not a removal plus an addition, which is what a reviewer wants to read.
 */
export function identityOf(c: DiffComponent): string {
  if (c.purl) {
    const base = c.purl.split('#')[0]?.split('?')[0] ?? c.purl;
    const at = base.lastIndexOf('@');
    // An '@' before the last '/' belongs to a namespace (percent-encoding is not universal).
    return `purl:${(at > base.lastIndexOf('/') ? base.slice(0, at) : base).toLowerCase()}`;
  }
  return `name:${c.group ? `${c.group}/` : ''}${c.name}`;
}

const ref = (c: DiffComponent): ComponentRef => ({ name: c.group ? `${c.group}/${c.name}` : c.name, version: c.version, purl: c.purl });
const hashKey = (c: DiffComponent): string =>
  c.hashes
    .map((h) => `${h.alg}:${h.content}`)
    .sort()
    .join(',');
const licKey = (c: DiffComponent): string => [...c.licenses].sort().join(',');

function changedFields(a: DiffComponent, b: DiffComponent): string[] {
  const f: string[] = [];
  if (a.version !== b.version) f.push('version');
  if (a.purl !== b.purl) f.push('purl');
  if (a.cpe !== b.cpe) f.push('cpe');
  if (licKey(a) !== licKey(b)) f.push('licenses');
  // A hash present on both sides that differs is a change; hashes merely added or dropped are not.
  if (a.hashes.length > 0 && b.hashes.length > 0 && hashKey(a) !== hashKey(b)) f.push('hashes');
  if (a.supplier !== b.supplier) f.push('supplier');
  return f;
}

function group(list: DiffComponent[]): Map<string, DiffComponent[]> {
  const m = new Map<string, DiffComponent[]>();
  for (const c of list) {
    const k = identityOf(c);
    const g = m.get(k);
    if (g) g.push(c);
    else m.set(k, [c]);
  }
  return m;
}

// Newest first, so the newest old version pairs with the newest new one (4.17.20 -> 4.17.21).
const byVersion = (a: DiffComponent, b: DiffComponent): number => (b.version ?? '').localeCompare(a.version ?? '', 'en', { numeric: true });

/** Indices in original order, read from `head` on (no shifting: that would be quadratic again). */
type Queue = { items: number[]; head: number };

/** Takes the first entry of `queue` not yet used, marking it used. */
function takeFirst(queue: Queue | undefined, used: boolean[]): number | undefined {
  while (queue && queue.head < queue.items.length) {
    const i = queue.items[queue.head++] as number;
    if (!used[i]) {
      used[i] = true;
      return i;
    }
  }
  return undefined;
}

/** The first unused entry of either queue, whichever came first in the original order. */
function takeEarliest(a: Queue | undefined, b: Queue | undefined, used: boolean[]): number | undefined {
  const skip = (q: Queue | undefined) => {
    while (q && q.head < q.items.length && used[q.items[q.head] as number]) q.head++;
    return q && q.head < q.items.length ? (q.items[q.head] as number) : undefined;
  };
  const x = skip(a);
  const y = skip(b);
  if (x === undefined && y === undefined) return undefined;
  return x !== undefined && (y === undefined || x < y) ? takeFirst(a, used) : takeFirst(b, used);
}

const push = (m: Map<string, Queue>, k: string, i: number) => {
  const q = m.get(k);
  if (q) q.items.push(i);
  else m.set(k, { items: [i], head: 0 });
};

/**
 * Pairs one identity's new entries with its old ones through hash maps, so the work grows with the
 * number of entries, not its square (16,000 same-named components once took 3.3 s; issue 24).
 * Pass 1 cancels identical entries ("identical" as `changedFields` sees it: hashes count only when
 * both sides have some), pass 2 pairs equal versions as changes; what is left is returned.
 */
function pairWithin(olds: DiffComponent[], news: DiffComponent[], out: SbomDiff): { restOld: DiffComponent[]; restNew: DiffComponent[] } {
  const base = (c: DiffComponent) => JSON.stringify([c.version, c.purl, c.cpe, licKey(c), c.supplier]);
  const used = olds.map(() => false);
  const exact = new Map<string, Queue>();
  const noHashes = new Map<string, Queue>();
  const anyHashes = new Map<string, Queue>();
  const sameVersion = new Map<string, Queue>();
  olds.forEach((o, i) => {
    const b = base(o);
    push(anyHashes, b, i);
    push(o.hashes.length === 0 ? noHashes : exact, o.hashes.length === 0 ? b : `${b}|${hashKey(o)}`, i);
    push(sameVersion, o.version ?? '\u0000', i);
  });
  const unmatched = news.filter((n) => {
    const b = base(n);
    // The earliest old entry that matches, as a scan in document order would find it.
    const i = n.hashes.length === 0 ? takeFirst(anyHashes.get(b), used) : takeEarliest(exact.get(`${b}|${hashKey(n)}`), noHashes.get(b), used);
    return i === undefined;
  });
  const restNew: DiffComponent[] = [];
  for (const n of unmatched) {
    const i = takeFirst(sameVersion.get(n.version ?? '\u0000'), used);
    if (i === undefined) restNew.push(n);
    else out.changed.push({ before: ref(olds[i] as DiffComponent), after: ref(n), fields: changedFields(olds[i] as DiffComponent, n) });
  }
  return { restOld: olds.filter((_, i) => !used[i]), restNew };
}

/**
 * Added, removed and changed components between two versions. Within one identity (several
 * versions of one package are common in npm trees), identical entries pair first, then equal
 * versions; the remaining ones pair newest with newest as changes; any surplus is added or removed.
 */
export function diffComponents(before: DiffComponent[], after: DiffComponent[]): SbomDiff {
  const out: SbomDiff = { added: [], removed: [], changed: [] };
  const old = group(before);
  for (const [key, news] of group(after)) {
    const { restOld: olds, restNew } = pairWithin(old.get(key) ?? [], news, out);
    old.delete(key);
    restNew.sort(byVersion);
    olds.sort(byVersion);
    const pairs = Math.min(restNew.length, olds.length);
    for (let i = 0; i < pairs; i++) {
      const o = olds[i] as DiffComponent;
      const n = restNew[i] as DiffComponent;
      out.changed.push({ before: ref(o), after: ref(n), fields: changedFields(o, n) });
    }
    for (const n of restNew.slice(pairs)) out.added.push(ref(n));
    for (const o of olds.slice(pairs)) out.removed.push(ref(o));
  }
  for (const olds of old.values()) for (const o of olds) out.removed.push(ref(o));
  return out;
}
