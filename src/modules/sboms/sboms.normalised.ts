/** The format-independent shape both normalisers produce and the rest of the module reads. */
export type ComponentRelationship = 'direct' | 'transitive' | 'unknown';

export type NormalComponent = {
  ref: string | null;
  type: string | null;
  group: string | null;
  name: string;
  version: string | null;
  purl: string | null;
  cpe: string | null;
  licenses: string[];
  hashes: { alg: string; content: string }[];
  supplier: string | null;
  /** The source repository the document names (upstream contact discovery, docs/upstream.md). */
  vcsUrl: string | null;
  /** The project's site the document names. */
  websiteUrl: string | null;
  relationship: ComponentRelationship;
};

export type NormalSbom = {
  serialNumber: string | null;
  /**
   * The product the document describes, when it names exactly one, with its package URL and CPE
   * (read when an advisory identifies the product; not stored as columns).
   */
  subject: { ref: string | null; name: string | null; version: string | null; purl: string | null; cpe: string | null } | null;
  components: NormalComponent[];
  /** "from depends on to", by ref, without duplicates. */
  edges: [string, string][];
};

/**
 * Marks each component direct (the subject depends on it), transitive (reachable only through
 * others) or unknown (no subject, no graph, or not reachable from the subject). Breadth-first, so
 * a component both direct and reachable through others counts as direct; cycles are harmless.
 */
export function classify(components: NormalComponent[], edges: [string, string][], rootRef: string | null): void {
  if (!rootRef) return;
  const out = new Map<string, string[]>();
  for (const [from, to] of edges) {
    const list = out.get(from);
    if (list) list.push(to);
    else out.set(from, [to]);
  }
  const direct = new Set(out.get(rootRef) ?? []);
  if (direct.size === 0) return;
  const reached = new Set<string>(direct);
  const queue = [...direct];
  for (let i = 0; i < queue.length; i++) {
    for (const next of out.get(queue[i] as string) ?? []) {
      if (!reached.has(next)) {
        reached.add(next);
        queue.push(next);
      }
    }
  }
  for (const c of components) {
    if (c.ref === null) continue;
    if (direct.has(c.ref)) c.relationship = 'direct';
    else if (reached.has(c.ref)) c.relationship = 'transitive';
  }
}

/** Adds an edge once; self-loops are dropped (they say nothing about directness). */
export function edgeCollector(): { add(from: string, to: string): void; edges: [string, string][] } {
  const seen = new Set<string>();
  const edges: [string, string][] = [];
  return {
    edges,
    add(from, to) {
      if (from === to) return;
      const k = `${from}\u0000${to}`;
      if (seen.has(k)) return;
      seen.add(k);
      edges.push([from, to]);
    },
  };
}
