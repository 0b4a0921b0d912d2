import assert from 'node:assert/strict';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { describeCycle, type Edges, findCycle, importEdges, SRC, sourceFiles } from './import-graph.js';

/**
 * The layers of docs/architecture.md, read from the imports of `src/`: every relative import
 * (type-only ones too) is an edge between the top-level folders, each file at the top its own node.
 */
const nodeOf = (file: string): string => {
  const parts = relative(SRC, file).split(sep);
  return parts.length === 1 ? (parts[0] ?? '').replace(/\.ts$/, '') : (parts[0] ?? '');
};

const folderEdges = (files = sourceFiles(SRC), read?: (f: string) => string): Edges => importEdges(files, nodeOf, read);

/** What each layer may never import: the verbs are transport-neutral, transports do not import each other. */
const FORBIDDEN: Record<string, string[]> = {
  kernel: ['db', 'modules', 'jobs', 'http', 'web', 'mcp', 'operator', 'cli', 'app', 'main', 'server'],
  db: ['modules', 'jobs', 'http', 'web', 'mcp', 'operator', 'cli', 'app', 'main', 'server'],
  modules: ['jobs', 'http', 'web', 'mcp', 'operator', 'cli', 'app', 'main', 'server'],
  http: ['jobs', 'web', 'mcp', 'operator', 'cli', 'app', 'main', 'server'],
  web: ['jobs', 'mcp', 'operator', 'cli', 'app', 'main', 'server'],
  mcp: ['jobs', 'web', 'operator', 'cli', 'app', 'main', 'server'],
  // The job registry lists the modules' jobs and the transports' offload tasks; only server.ts starts it.
  jobs: ['http', 'web', 'operator', 'cli', 'app', 'main', 'server'],
  config: ['kernel', 'db', 'modules', 'jobs', 'http', 'web', 'mcp', 'operator', 'cli', 'app', 'main', 'server'],
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
  assert.equal(cycle, undefined, cycle && describeCycle(edges, cycle));
});

test('the check itself sees a cycle and a module importing a transport', () => {
  const files = ['/src/modules/a/x.ts', '/src/http/y.ts'].map((f) => join(SRC, '..', f));
  const sources: Record<string, string> = {
    [files[0] as string]: "import { y } from '../../http/y.js';",
    [files[1] as string]: "import { x } from '../modules/a/x.js';",
  };
  const edges = folderEdges(files, (f) => sources[f] ?? '');
  assert.deepEqual(findCycle(edges), ['http', 'modules', 'http']);
  assert.equal(edges.get('modules')?.get('http'), 'modules/a/x.ts imports ../../http/y.js');
});
