import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { test } from 'node:test';
import { SRC, sourceFiles } from './import-graph.js';

/**
 * Libraries that most of the server's life never calls are imported on first use (`await
 * import(...)`, or `requireOnFirstUse` for CommonJS libraries with synchronous callers), never by a
 * static import: V8 keeps every loaded module's source and compiled objects for the life of the
 * process, which an idle server pays for (ADR 0020; OpenPGP.js alone is 2.3 MiB of source; the CVSS
 * calculator 1.2 MiB of heap, markdown-it 1.1, yaml 0.7). packageurl-js also makes an
 * `Intl.Collator` as it loads, which keeps ICU's collation data resident (ADR 0027). Type-only
 * imports cost nothing at run time and are allowed.
 */
const ON_FIRST_USE = ['openpgp', 'packageurl-js', 'ae-cvss-calculator', 'markdown-it', 'yaml'];

/**
 * Loaded by the surface or setting that needs them, so a server that starts loads none of them
 * (ADR 0027): the MCP SDK by the first MCP request (about 5 MiB of an idle heap), the Redis client
 * only when REDIS_URL is set, the PostgreSQL driver and drizzle's session for it only when
 * DATABASE_URL is set (src/db/postgres-client.ts). Files behind a dynamic import may import them
 * statically.
 */
const NOT_AT_START = ['@modelcontextprotocol/server', 'ioredis', 'pg', 'drizzle-orm/node-postgres', ...ON_FIRST_USE];

const STATIC_IMPORT = /^(?:import|export)\s+(?!type\s)(?:[^;]*?from\s+)?'([^']+)'/gm;
const staticImports = (file: string): string[] => [...readFileSync(file, 'utf8').matchAll(STATIC_IMPORT)].map((m) => m[1] as string);

test('libraries needed only now and then are imported on first use', () => {
  const offenders = sourceFiles(SRC).flatMap((file) =>
    staticImports(file)
      .filter((spec) => ON_FIRST_USE.includes(spec))
      .map((spec) => `${relative(SRC, file)} imports ${spec} at load`),
  );
  assert.deepEqual(offenders, []);
});

test("the server's start loads neither the MCP SDK, the Redis client nor the PostgreSQL driver", () => {
  // Every file the entry point reaches through static imports, and the packages those import.
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) visit(normalize(join(dirname(file), spec.replace(/\.js$/, '.ts'))));
      else if (!packages.has(spec)) packages.set(spec, relative(SRC, file));
    }
  };
  visit(join(SRC, 'server.ts'));
  assert.ok(seen.size > 100, `the walk reached the server's modules (${seen.size} files)`);
  assert.ok(packages.has('fastify'), 'the walk sees package imports');
  const offenders = NOT_AT_START.filter((p) => packages.has(p)).map((p) => `${packages.get(p)} imports ${p} at start`);
  assert.deepEqual(offenders, []);
});
