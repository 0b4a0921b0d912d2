// One vulnerability per flaw: records that share an id or an alias (GHSA, CVE, PYSEC, GO, ...)
// are one vulnerability with all their ids.

export type Aliased<T> = { id: string; aliases: string[]; item: T };

/** Groups items whose id sets intersect, transitively (union-find over ids). */
export function groupByAlias<T>(list: Aliased<T>[]): { ids: string[]; items: T[] }[] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    for (let y = x; y !== root;) {
      const next = parent.get(y)!;
      parent.set(y, root);
      y = next;
    }
    return root;
  };
  const add = (x: string) => {
    if (!parent.has(x)) parent.set(x, x);
  };
  for (const a of list) {
    add(a.id);
    for (const alias of a.aliases) {
      add(alias);
      const p = find(a.id);
      const q = find(alias);
      if (p !== q) parent.set(q, p);
    }
  }
  const groups = new Map<string, { ids: Set<string>; items: T[] }>();
  for (const a of list) {
    const root = find(a.id);
    let g = groups.get(root);
    if (!g) groups.set(root, (g = { ids: new Set(), items: [] }));
    g.ids.add(a.id);
    for (const alias of a.aliases) g.ids.add(alias);
    g.items.push(a.item);
  }
  return [...groups.values()].map((g) => ({ ids: [...g.ids].sort(), items: g.items }));
}

/** The name a flaw is shown and keyed by: its CVE (the lowest, if several), else a GHSA, else the lowest id. */
export function vulnKeyOf(ids: string[]): string {
  const sorted = [...ids].sort();
  return sorted.find((i) => i.startsWith('CVE-')) ?? sorted.find((i) => i.startsWith('GHSA-')) ?? sorted[0]!;
}
