import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { describeCycle, type Edges, findCycle, importEdges, moduleOf, SRC, sourceFiles } from './import-graph.js';

/**
 * The modules of src/modules/ form a directed acyclic graph (docs/architecture.md "Modules"): a
 * module's imports of another module are edges, and no chain of them comes back. The graph is
 * listed in docs/architecture.md, lowest first, and held to the source here.
 */
const MODULES = join(SRC, 'modules');
const moduleEdges = (): Edges => importEdges(sourceFiles(MODULES), moduleOf);

/** The fenced `modules` block of docs/architecture.md: `name -> a, b` per line, `(none)` for a leaf. */
function documentedGraph(): { order: string[]; edges: Map<string, string[]> } {
  const doc = readFileSync(join(SRC, '..', 'docs', 'architecture.md'), 'utf8');
  const block = /```modules\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(block, 'docs/architecture.md has a ```modules block');
  const edges = new Map<string, string[]>();
  for (const line of block.trim().split('\n')) {
    const [name, targets] = line.split(' -> ').map((s) => s.trim());
    assert.ok(name && targets, `a line of the modules block reads "name -> a, b": ${line}`);
    edges.set(name, targets === '(none)' ? [] : targets.split(', '));
  }
  return { order: [...edges.keys()], edges };
}

test('the modules import each other without a cycle', () => {
  const edges = moduleEdges();
  const cycle = findCycle(edges);
  assert.equal(cycle, undefined, cycle && describeCycle(edges, cycle));
});

test('operations/, which every transport reads, imports no feature module', () => {
  assert.deepEqual([...(moduleEdges().get('operations')?.values() ?? [])], []);
});

test('docs/architecture.md lists every module with the modules it imports, each after those', () => {
  const edges = moduleEdges();
  const { order, edges: documented } = documentedGraph();
  const folders = readdirSync(MODULES, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  assert.deepEqual([...order].sort(), folders, 'the modules block names each folder of src/modules/ once');
  const actual = Object.fromEntries(folders.map((m) => [m, [...(edges.get(m)?.keys() ?? [])].sort()]));
  const listed = Object.fromEntries(folders.map((m) => [m, [...(documented.get(m) ?? [])].sort()]));
  assert.deepEqual(listed, actual, 'the modules block of docs/architecture.md says what src/modules/ imports');
  for (const [i, m] of order.entries()) {
    const later = (documented.get(m) ?? []).filter((t) => !order.slice(0, i).includes(t));
    assert.deepEqual(later, [], `${m} is listed before modules it imports`);
  }
});

test('the check itself finds a cycle among modules, names its imports, and ignores files outside them', () => {
  const file = (p: string) => join(MODULES, p);
  const sources: Record<string, string> = {
    [file('a/x.ts')]: "import { y } from '../b/y.js';\nimport { z } from './z.js';",
    [file('b/y.ts')]: "export { w } from '../c/w.js';",
    [file('c/w.ts')]: "import type { x } from '../a/x.js';\nimport { k } from '../../kernel/k.js';",
    [file('d/v.ts')]: "import { w } from '../c/w.js';",
  };
  const edges = importEdges(Object.keys(sources), moduleOf, (f) => sources[f] ?? '');
  const cycle = findCycle(edges);
  assert.deepEqual(cycle, ['a', 'b', 'c', 'a']);
  assert.equal(
    describeCycle(edges, cycle),
    'cycle a -> b -> c -> a; modules/a/x.ts imports ../b/y.js; modules/b/y.ts imports ../c/w.js; modules/c/w.ts imports ../a/x.js',
  );
  assert.equal(edges.has('kernel') || edges.get('c')?.has('kernel'), false);
  // Without the edge that closes it, the same graph is acyclic.
  edges.get('c')?.delete('a');
  assert.equal(findCycle(edges), undefined);
});
