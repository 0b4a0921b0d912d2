import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { test } from 'node:test';

/**
 * The layers of docs/architecture.md, read from the imports of `src/`: every relative import
 * (type-only ones too) is an edge between the top-level folders, each file at the top its own node.
 */
const SRC = normalize(join(import.meta.dirname, '..', '..', 'src'));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const nodeOf = (file: string): string => {
  const parts = relative(SRC, file).split(sep);
  return parts.length === 1 ? (parts[0] ?? '').replace(/\.ts$/, '') : (parts[0] ?? '');
};

export function folderEdges(files = sourceFiles(SRC), read = (f: string) => readFileSync(f, 'utf8')): Map<string, Map<string, string>> {
  const edges = new Map<string, Map<string, string>>();
  for (const file of files) {
    for (const m of read(file).matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
      const target = normalize(join(dirname(file), m[1] as string));
      const [a, b] = [nodeOf(file), nodeOf(target)];
      if (a === b) continue;
      const out = edges.get(a) ?? new Map<string, string>();
      // One example import per edge, for the message.
      if (!out.has(b)) out.set(b, `${relative(SRC, file)} imports ${m[1]}`);
      edges.set(a, out);
    }
  }
  return edges;
}

/** A cycle as its nodes, or undefined. */
export function findCycle(edges: Map<string, Map<string, string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (n: string): string[] | undefined => {
    if (state.get(n) === 'done') return undefined;
    if (state.get(n) === 'open') return [...path.slice(path.indexOf(n)), n];
    state.set(n, 'open');
    path.push(n);
    for (const next of edges.get(n)?.keys() ?? []) {
      const c = visit(next);
      if (c) return c;
    }
    path.pop();
    state.set(n, 'done');
    return undefined;
  };
  for (const n of edges.keys()) {
    const c = visit(n);
    if (c) return c;
  }
  return undefined;
}

/** What each layer may never import: the verbs are transport-neutral, transports do not import each other. */
const FORBIDDEN: Record<string, string[]> = {
  kernel: ['db', 'modules', 'http', 'web', 'mcp', 'operator', 'cli', 'app', 'main'],
  db: ['modules', 'http', 'web', 'mcp', 'operator', 'cli', 'app', 'main'],
  modules: ['http', 'web', 'mcp', 'operator', 'cli', 'app', 'main'],
  http: ['web', 'mcp', 'operator', 'cli', 'app', 'main'],
  web: ['mcp', 'operator', 'cli', 'app', 'main'],
  mcp: ['web', 'operator', 'cli', 'app', 'main'],
  config: ['kernel', 'db', 'modules', 'http', 'web', 'mcp', 'operator', 'cli', 'app', 'main'],
};

test('no import crosses a layer the wrong way', () => {
  const edges = folderEdges();
  const wrong: string[] = [];
  for (const [from, banned] of Object.entries(FORBIDDEN)) {
    for (const [to, example] of edges.get(from) ?? []) if (banned.includes(to)) wrong.push(`${from} -> ${to}: ${example}`);
  }
  assert.deepEqual(wrong, []);
});

test('the folders of src/ import each other without a cycle', () => {
  const edges = folderEdges();
  const cycle = findCycle(edges);
  assert.equal(
    cycle,
    undefined,
    cycle &&
      `cycle ${cycle.join(' -> ')}; ${cycle
        .slice(0, -1)
        .map((n, i) => edges.get(n)?.get(cycle[i + 1] as string))
        .join('; ')}`,
  );
});

test('the check itself sees a cycle and a module importing a transport', () => {
  const files = ['/src/modules/a/x.ts', '/src/http/y.ts'].map((f) => join(SRC, '..', f));
  const sources: Record<string, string> = {
    [files[0] as string]: "import { y } from '../../http/y.js';",
    [files[1] as string]: "import { x } from '../modules/a/x.js';",
  };
  const edges = folderEdges(files, (f) => sources[f] ?? '');
  assert.deepEqual(findCycle(edges), ['modules', 'http', 'modules']);
  assert.equal(edges.get('modules')?.get('http'), 'modules/a/x.ts imports ../../http/y.js');
});
