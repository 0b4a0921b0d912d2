import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';
import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import * as schema from '../../src/db/schema/index.js';
import { AUDIT_COLUMN_KEYS } from '../../src/modules/audit/audit-insert-sql.js';

// Issue 23: hand-written SQL names columns the schema has; a rename fails here, not at run time.

const SRC = normalize(join(import.meta.dirname, '..', '..', 'src'));
const COLUMNS = new Map<string, Set<string>>(
  Object.values(schema).flatMap((v) =>
    is(v, PgTable) ? [[getTableName(v), new Set(Object.values(getTableColumns(v)).map((c) => c.name))] as [string, Set<string>]] : [],
  ),
);

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

  it('every written-out insert column list names columns its table has', () => {
    const lists = sourceFiles(SRC).flatMap((f) => insertColumnLists(readFileSync(f, 'utf8')).map((l) => ({ ...l, file: relative(SRC, f) })));
    assert.ok(lists.length >= 15, `found ${lists.length} lists: the scan reads the statements`);
    const wrong = lists.flatMap((l) => {
      const have = COLUMNS.get(l.table);
      if (!have) return [`${l.file}: no table ${l.table}`];
      return l.columns.filter((c) => !have.has(c)).map((c) => `${l.file}: ${l.table} has no column ${c}`);
    });
    assert.deepEqual(wrong, []);
  });

  it('reads a list as its table and columns, and leaves out one built from the schema', () => {
    assert.deepEqual(insertColumnLists('insert into vulndb_records (id, "references") values (1, 2); insert into audit_log (${AUDIT_COLUMNS}) select 1'), [
      { table: 'vulndb_records', columns: ['id', 'references'] },
    ]);
  });
});
