import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { fileURLToPath } from 'node:url';

// The resolve cache that every entry point registers (src/kernel/module-resolution.ts, ADR 0022)
// answers in place of Node's own resolution: it must load the same files, each in the same format.
// Two fresh processes import the application's packages, one with the cache and one without, and
// record every module loaded and the format it was loaded as.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = new URL('../../src/kernel/module-resolution.ts', import.meta.url).href;
// ESM packages (drizzle-orm, zod, the MCP SDK), CommonJS ones with and without a declared type
// (fastify, pino, pg, semver), and ones with .mjs/.cjs files (openpgp, yaml).
const PACKAGES = [
  'drizzle-orm',
  'drizzle-orm/pg-core',
  'drizzle-orm/node-postgres',
  'zod',
  '@modelcontextprotocol/server',
  'fastify',
  'pino',
  'pg',
  'semver',
  'openpgp',
  'yaml',
];

function loaded(withCache: boolean): string[] {
  const script = `
import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ load(url, context, next) { const r = next(url, context); seen.push(url + ' ' + r.format); return r; } });
${withCache ? `(await import(${JSON.stringify(CACHE)})).registerResolveCache();` : ''}
for (const name of ${JSON.stringify(PACKAGES)}) await import(name);
process.stdout.write(JSON.stringify(seen.filter((s) => s.includes('/node_modules/')).sort()));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as string[];
}

it("loads the same modules in the same formats as Node's own resolution", () => {
  const cached = loaded(true);
  const plain = loaded(false);
  assert.deepEqual(cached, plain);
  assert.ok(plain.length > 200, `the packages load many modules (${plain.length})`);
  for (const format of ['module', 'commonjs'])
    assert.ok(
      plain.some((s) => s.endsWith(` ${format}`)),
      `some load as ${format}`,
    );
});
