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
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
