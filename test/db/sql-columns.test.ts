import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { getTableColumns } from 'drizzle-orm';
import * as schema from '../../src/db/schema/index.js';
import { AUDIT_COLUMN_KEYS } from '../../src/modules/audit/audit-insert-sql.js';

// Issue 23, issue 38: hand-written SQL takes its insert column lists from the schema, so a rename fails the type check.

const SRC = normalize(join(import.meta.dirname, '..', '..', 'src'));
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every `insert into table (a, b, ...)` written out in `text`, with its columns (a list built with `${...}` is left out). */
export function insertColumnLists(text: string): { table: string; columns: string[] }[] {
  return [...text.matchAll(/\binsert\s+into\s+"?(\w+)"?\s*\(([^()$]*)\)/gi)].map((m) => ({
    table: (m[1] ?? '').toLowerCase(),
    columns: (m[2] ?? '').split(',').map((c) => c.trim().replace(/^"|"$/g, '')),
  }));
}

describe('hand-written SQL and the schema', () => {
  it('the audit column list names every column of audit_log but its generated id', () => {
    const columns = getTableColumns(schema.auditLog);
    assert.deepEqual(
      [...AUDIT_COLUMN_KEYS].sort(),
      Object.keys(columns)
        .filter((k) => k !== 'id')
        .sort(),
    );
  });

  it('no insert in src/ writes its column list out: each is built from its Drizzle table (sqlColumns, AUDIT_COLUMNS)', () => {
    const lists = sourceFiles(SRC).flatMap((f) => insertColumnLists(readFileSync(f, 'utf8')).map((l) => `${relative(SRC, f)}: ${l.table}`));
    assert.deepEqual(lists, []);
  });

  it('reads a list as its table and columns, and leaves out one built from the schema', () => {
    assert.deepEqual(insertColumnLists('insert into vulndb_records (id, "references") values (1, 2); insert into audit_log (${AUDIT_COLUMNS}) select 1'), [
      { table: 'vulndb_records', columns: ['id', 'references'] },
    ]);
  });
});
