import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';

/** Import graphs read from the source: nodes named by `nodeOf`, one example import kept per edge for messages. */
export const SRC = normalize(join(import.meta.dirname, '..', '..', 'src'));

export type Edges = Map<string, Map<string, string>>;

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/**
 * Every relative import (type-only ones and re-exports too) as an edge between the nodes of its
 * two files; a file whose node is undefined is outside the graph.
 */
export function importEdges(files: readonly string[], nodeOf: (file: string) => string | undefined, read = (f: string) => readFileSync(f, 'utf8')): Edges {
  const edges: Edges = new Map();
  for (const file of files) {
    const a = nodeOf(file);
    if (a === undefined) continue;
    for (const m of read(file).matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const b = nodeOf(normalize(join(dirname(file), m[1] as string)));
      if (b === undefined || a === b) continue;
      const out = edges.get(a) ?? new Map<string, string>();
      if (!out.has(b)) out.set(b, `${relative(SRC, file)} imports ${m[1]}`);
      edges.set(a, out);
    }
  }
  return edges;
}

/** A cycle as its nodes (the first repeated at the end), or undefined. */
export function findCycle(edges: Edges): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === 'done') return undefined;
    if (state.get(n) === 'open') return [...path.slice(path.indexOf(n)), n];
    state.set(n, 'open');
    path.push(n);
    for (const next of [...(edges.get(n)?.keys() ?? [])].sort()) {
      const c = visit(next);
      if (c) return c;
    }
    path.pop();
    state.set(n, 'done');
    return undefined;
  };
  for (const n of [...edges.keys()].sort()) {
    const c = visit(n);
    if (c) return c;
  }
  return undefined;
}

/** The message for a cycle: its nodes, then the import behind each of its edges. */
export const describeCycle = (edges: Edges, cycle: readonly string[]): string =>
  `cycle ${cycle.join(' -> ')}; ${cycle
    .slice(0, -1)
    .map((n, i) => edges.get(n)?.get(cycle[i + 1] as string))
    .join('; ')}`;

/** The module folder of a file under src/modules/, or undefined for any other file. */
export function moduleOf(file: string): string | undefined {
  const parts = relative(join(SRC, 'modules'), file).split(sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}
