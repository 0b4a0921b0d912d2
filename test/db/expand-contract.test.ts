import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { migrationsFolder } from '../../src/db/client.js';

// docs/deployment.md "Rolling upgrades": a release's migrations must work with the previous
// release's code still running. Statements that take away what that code may use (a table or
// column dropped or renamed, a column's type changed) are allowed only as a marked contract step,
// shipped a release after the code stopped using them.

const CONTRACTING = [/\bdrop\s+table\b/i, /\bdrop\s+column\b/i, /\brename\s+(column\b|to\b)/i, /\balter\s+column\s+\S+\s+(set\s+data\s+)?type\b/i];
const MARKER = /^--\s*contract step:\s*\S.*$/im;

/** The statements of a migration that contract the schema, unless the file is marked as a contract step. */
export function unmarkedContractions(sqlText: string): string[] {
  if (MARKER.test(sqlText)) return [];
  return sqlText
    .split('--> statement-breakpoint')
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => CONTRACTING.some((re) => re.test(s)));
}

test('no migration drops, renames or retypes a table or column unless marked as a contract step', () => {
  const files = readdirSync(migrationsFolder).filter((f) => f.endsWith('.sql'));
  assert.ok(files.length > 20);
  const offending = files.flatMap((f) => unmarkedContractions(readFileSync(`${migrationsFolder}/${f}`, 'utf8')).map((s) => `${f}: ${s.slice(0, 120)}`));
  assert.deepEqual(offending, []);
});

test('the rule catches each contracting statement and honours the marker', () => {
  for (const s of [
    'ALTER TABLE "reports" DROP COLUMN "x";',
    'DROP TABLE "old";',
    'ALTER TABLE "a" RENAME COLUMN "b" TO "c";',
    'alter table a rename to b;',
    'ALTER TABLE "a" ALTER COLUMN "b" SET DATA TYPE integer;',
  ]) {
    assert.equal(unmarkedContractions(`CREATE TABLE "n" ("id" uuid);\n--> statement-breakpoint\n${s}`).length, 1, s);
    assert.deepEqual(unmarkedContractions(`-- contract step: reports.x unused since 0.4.0\n${s}`), []);
  }
  assert.deepEqual(unmarkedContractions('ALTER TABLE "a" ADD COLUMN "b" text;\n-- dropping nothing: drop table is only in this comment'), []);
});
