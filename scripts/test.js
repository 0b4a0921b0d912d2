#!/usr/bin/env node
// Runs every *.test.ts under test/ and src/ with node:test, on Node's own type stripping with the
// project's resolve hook (scripts/ts-hooks.mjs), and prints the slowest files at the end
// (scripts/slowest-files.mjs): CI time is a budget, and this says where it goes.
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { readTimes, slowestFirst } from './slowest-files.mjs';

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
// The slowest files first, by their time in the last run (scripts/slowest-files.mjs keeps it): files
// run three at a time, and a long one that starts late runs on alone at the end. Files without a
// time (new ones, or a first run) start before them, in name order.
const timings = process.env.CRADLE_TEST_TIMINGS ?? resolve('node_modules', '.cache', 'cradle-test-times.json');
files = slowestFirst(files, readTimes(timings));
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
// Node's compile cache (V8's code for each module, on disk) for the built servers and CLIs the tests
// start, about a hundred a pass, all loading the same dist/ modules (measured: 6 % of a CLI command's
// CPU; the test processes themselves, on stripped TypeScript, gain nothing measurable). Kept in
// node_modules/.cache, which a clean clone starts without; NODE_COMPILE_CACHE set by the caller wins.
const env = { NODE_COMPILE_CACHE: resolve('node_modules', '.cache', 'cradle-compile'), ...process.env, CRADLE_TEST_TIMINGS: timings };
const result = spawnSync(process.execPath, args, { stdio: 'inherit', env });
process.exit(result.status ?? 1);
