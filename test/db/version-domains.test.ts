// The registry of version domains (src/db/version-domains.ts) against the database's own catalog:
// every trigger that raises a version is declared there, and every declared watch has its trigger.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { COMPANY_DOMAINS, type TableWatch, VERSION_DOMAINS } from '../../src/db/version-domains.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.drop());

type Trigger = { table: string; name: string; fn: string; type: number; def: string };
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;

/** The functions that raise a version: the global key state, a statement's rows, a company's own row. */
const RAISING = ['cradle_key_state_changed', 'cradle_data_changed', 'cradle_company_row_changed'];

async function versionTriggers(): Promise<Trigger[]> {
  return rowsOf<Trigger>(
    await database.db.execute(sql`
      select c.relname as "table", t.tgname as "name", p.proname as "fn", t.tgtype::int as "type", pg_get_triggerdef(t.oid) as "def"
      from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace join pg_proc p on p.oid = t.tgfoid
      where n.nspname = 'public' and not t.tgisinternal and p.proname::text in ${RAISING}
      order by 1, 2`),
  );
}

// pg_trigger.tgtype bits (PostgreSQL's trigger.h).
const INSERT = 4;
const DELETE = 8;
const UPDATE = 16;
const TRUNCATE = 32;

/** What an update trigger's WHEN clause watches, read back from the definition PostgreSQL prints. */
function updateWatchOf(def: string): TableWatch['update'] {
  const when = /\bWHEN \((.*)\) EXECUTE/i.exec(def)?.[1];
  if (!when) return 'any';
  if (/to_jsonb\(old/i.test(when)) {
    const half = when.slice(0, when.search(/IS DISTINCT FROM/i));
    return { except: [...half.matchAll(/'(\w+)'::text/g)].map((m) => m[1] ?? '').sort() };
  }
  if (/^\(*old\.\* IS DISTINCT FROM new\.\*\)*$/i.test(when)) return 'any';
  return { columns: [...new Set([...when.matchAll(/\bold\.(\w+)/gi)].map((m) => m[1] ?? ''))].sort() };
}

/** The domain a trigger raises: `keys` for the key state, else its function's argument. */
function domainOf(t: Trigger): string {
  if (t.fn === 'cradle_key_state_changed') return 'keys';
  const arg = /EXECUTE FUNCTION \w+\('(\w+)'\)/.exec(t.def)?.[1];
  assert.ok(arg, `trigger ${t.name} names no domain: ${t.def}`);
  return arg;
}

const normal = (w: TableWatch) => ({
  insert: w.insert,
  update:
    w.update === 'any' || !w.update ? w.update : 'columns' in w.update ? { columns: [...w.update.columns].sort() } : { except: [...w.update.except].sort() },
  delete: w.delete,
});

describe('version domains: the registry is what the database does', () => {
  it('every version-raising trigger is a declared watch, and every declared watch has its triggers', async () => {
    const triggers = await versionTriggers();
    const seen: Record<string, Record<string, { insert: boolean; update: TableWatch['update'] | false; delete: boolean }>> = {};
    for (const t of triggers) {
      const domain = domainOf(t);
      const watch = ((seen[domain] ??= {})[t.table] ??= { insert: false, update: false, delete: false });
      if (t.type & INSERT) watch.insert = true;
      if (t.type & DELETE) watch.delete = true;
      if (t.type & UPDATE) {
        assert.equal(watch.update, false, `${domain}/${t.table}: one update trigger (${t.name})`);
        watch.update = updateWatchOf(t.def);
      }
    }
    const declared = Object.fromEntries(
      Object.entries(VERSION_DOMAINS).map(([domain, d]) => [
        domain,
        Object.fromEntries(Object.entries(d.watches).map(([table, w]) => [table, normal(w as TableWatch)])),
      ]),
    );
    assert.deepEqual(seen, declared);
  });

  it('a statement-level watch of deletions also sees TRUNCATE; a table of many companies is noted once per statement', async () => {
    const truncated = new Set<string>();
    const deletedByStatement = new Set<string>();
    for (const t of await versionTriggers()) {
      const rowLevel = (t.type & 1) === 1;
      const watch = `${domainOf(t)}/${t.table}`;
      if (t.fn === 'cradle_company_row_changed') assert.ok(rowLevel && t.table === 'companies', `${t.name}: a company's own row`);
      if (t.fn === 'cradle_data_changed') assert.ok(!rowLevel, `${t.name}: one call per statement (transition tables)`);
      if (t.type & TRUNCATE) truncated.add(watch);
      if (!rowLevel && t.type & DELETE) deletedByStatement.add(watch);
    }
    assert.ok(deletedByStatement.size > 10);
    assert.deepEqual(
      [...deletedByStatement].filter((w) => !truncated.has(w)),
      [],
    );
  });

  it("company_data_versions accepts exactly the registry's company domains", async () => {
    const [row] = rowsOf<{ def: string }>(
      await database.db.execute(sql`select pg_get_constraintdef(oid) as "def" from pg_constraint where conname = 'company_data_versions_domain_check'`),
    );
    assert.deepEqual([...(row?.def.matchAll(/'(\w+)'/g) ?? [])].map((m) => m[1]).sort(), [...COMPANY_DOMAINS].sort());
  });
});
