#!/usr/bin/env node
// Runs every *.test.ts under test/ and src/ with node:test through tsx.
// Node 20's test runner takes no glob patterns, so the files are listed here.
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
const concurrency = process.env.TEST_CONCURRENCY ?? '3';
// --test-force-exit: a file whose process stays alive after its tests (an open handle: a Redis or
// PostgreSQL connection, a timer) ends when its tests end instead of holding the run for ever: a
// guard for CI, not a licence to leak. test/http/metrics.test.ts did on the PostgreSQL pass: an app
// built in a test with its own `testRateLimiter()` (a Redis connection there) was closed but its
// limiter was not (buildApp does not own the limiter it is given). To find such a handle, run the
// file with `node --import tsx --test <file>` (no force-exit) and print
// `process.getActiveResourcesInfo()` from an unref'd interval.
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-force-exit', `--test-concurrency=${concurrency}`, ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
