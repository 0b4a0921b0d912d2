import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { keepTimes, readTimes, slowestFirst } from '../../scripts/slowest-files.mjs';

// `npm test` starts the slowest files first, by the times the reporter kept from the last run.

const dir = mkdtempSync(join(tmpdir(), 'cradle-times-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('orders files without a time first by name, then the rest slowest first', () => {
  const files = ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/new-2.test.ts', 'test/new-1.test.ts'];
  const times = { 'test/a.test.ts': 5_000, 'test/b.test.ts': 90_000, 'test/c.test.ts': 20_000, 'test/gone.test.ts': 1 };
  assert.deepEqual(slowestFirst(files, times), ['test/new-1.test.ts', 'test/new-2.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/a.test.ts']);
  assert.deepEqual(slowestFirst(files, {}), [...files].sort(), 'a first run keeps name order');
});

test("keeps this run's times beside those of files it did not run", () => {
  const path = join(dir, 'nested', 'times.json');
  assert.deepEqual(readTimes(path), {});
  keepTimes(path, [
    { file: 'test/a.test.ts', ms: 1234.6 },
    { file: 'test/b.test.ts', ms: 50 },
  ]);
  keepTimes(path, [
    { file: 'test/b.test.ts', ms: 70.2 },
    { file: 'test/cancelled.test.ts', ms: 0 },
  ]);
  assert.deepEqual(readTimes(path), { 'test/a.test.ts': 1235, 'test/b.test.ts': 70 });
});
