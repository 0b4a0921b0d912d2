#!/usr/bin/env node
// Runs every *.test.ts under test/ and src/ with node:test, on Node's own type stripping with the
// project's resolve hook (scripts/ts-hooks.mjs), and prints the slowest files at the end
// (scripts/slowest-files.mjs): CI time is a budget, and this says where it goes.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function walk(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const filter = process.argv.slice(2);
let files = [...walk('src'), ...walk('test')].sort();
if (filter.length > 0) files = files.filter((f) => filter.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  console.error(`npm test needs Node.js 22.18 or newer (type stripping and module.registerHooks); this is ${process.version}`);
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
// --test-force-exit: a file whose process stays alive after its tests (an open handle: a Redis or
// PostgreSQL connection, a timer) ends when its tests end instead of holding the run for ever: a
// guard for CI, not a licence to leak. test/http/metrics.test.ts did on the PostgreSQL pass: an app
// built in a test with its own `testRateLimiter()` (a Redis connection there) was closed but its
// limiter was not (buildApp does not own the limiter it is given). To find such a handle, run the
// file with `node --import ./scripts/ts-hooks.mjs --test <file>` (no force-exit) and print
// `process.getActiveResourcesInfo()` from an unref'd interval.
const reporters = [
  ...['--test-reporter=spec', '--test-reporter-destination=stdout'],
  ...['--test-reporter=./scripts/slowest-files.mjs', '--test-reporter-destination=stderr'],
];
const args = ['--import', './scripts/ts-hooks.mjs', '--test', '--test-force-exit', `--test-concurrency=${concurrency}`, ...reporters, ...files];
const result = spawnSync(process.execPath, args, {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
