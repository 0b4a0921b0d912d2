// PostgreSQL row-level security, the second wall between companies (ADR 0009). These tests run
// only on PostgreSQL (PGlite is one trusted process without roles): CI runs them there.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { asc, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { type Database, openDatabase } from '../../src/db/client.js';
import { APP_ROLE } from '../../src/db/scoped-pool.js';
import { products, reports } from '../../src/db/schema/index.js';
import { asSystem, inCompany, openRequestScope, runInRequestScope } from '../../src/db/tenant-scope.js';
import { currentSession } from '../../src/http/session-auth.js';
import { operatorContext } from '../../src/kernel/context.js';
import { createMemoryRateLimiter } from '../../src/kernel/rate-limit.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { createKey } from '../../src/modules/keys/create-key.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { makeAdmin, makeCompany, TEST_PASSWORD } from '../helpers/factories.js';
import { testConfig } from '../helpers/app.js';

const skip = process.env.DATABASE_URL ? false : 'row-level security is a PostgreSQL wall (set DATABASE_URL)';

let database: TestDatabase;
let a: Company;
let b: Company;

before(async () => {
  if (skip) return;
  database = await createTestDatabase();
  a = await makeCompany(database.db, { name: 'Alpha' });
  b = await makeCompany(database.db, { name: 'Beta' });
  for (const [company, n] of [
    [a, 3],
    [b, 2],
  ] as const) {
    for (let i = 0; i < n; i++)
      await fileReport(database.db, operatorContext(), company, { description: `${company.name} report ${i}: buffer overflow in the updater.` }, 'api');
  }
});

after(async () => {
  await database?.drop();
});

/** A connection as Cradle's application role that Cradle's pool never told anything. */
async function bareAppRole<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: database.url });
  await c.connect();
  try {
    await c.query(`set role ${APP_ROLE}`);
    return await fn(c);
  } finally {
    await c.end();
  }
}

const planted = () => ({ id: randomUUID(), companyId: b.id, identifier: 'planted', name: 'Planted', createdAt: new Date(), updatedAt: new Date() });
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
const companyIdsOf = (rows: { companyId: string }[]) => [...new Set(rows.map((r) => r.companyId))].sort();

describe('row-level security on PostgreSQL', { skip }, () => {
  it('runs Cradle as a role that is neither superuser nor BYPASSRLS, with the policies in force', async () => {
    assert.equal(database.rowSecurity(), 'enforced');
    const rows = rowsOf<{ role: string; rolsuper: boolean; rolbypassrls: boolean }>(
      await database.db.execute(sql`select current_user as role, rolsuper, rolbypassrls from pg_roles where rolname = current_user`),
    );
    assert.deepEqual(rows, [{ role: APP_ROLE, rolsuper: false, rolbypassrls: false }]);
  });

  it('forces a tenant policy on every table that has a company column (and on companies)', async () => {
    const rows = rowsOf<{ table: string; rls: boolean; forced: boolean; policies: number }>(
      await asSystem(() =>
        database.db.execute(sql`
        select c.relname as table, c.relrowsecurity as rls, c.relforcerowsecurity as forced,
               (select count(*)::int from pg_policy p where p.polrelid = c.oid) as policies
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r'
          and (c.relname = 'companies' or exists (select 1 from information_schema.columns col
               where col.table_schema = 'public' and col.table_name = c.relname and col.column_name = 'company_id'))
        order by c.relname`),
      ),
    );
    assert.ok(rows.length >= 27, `expected every tenant table, found ${rows.length}`);
    const unguarded = rows.filter((r) => !r.rls || !r.forced || r.policies !== 1).map((r) => r.table);
    assert.deepEqual(unguarded, []);
  });

  it('shows a connection that was told no company no tenant row, and lets it write none', async () => {
    await bareAppRole(async (c) => {
      const seen = await c.query<{ n: number }>('select (select count(*)::int from reports) + (select count(*)::int from companies) as n');
      assert.equal(seen.rows[0]?.n, 0);
      await assert.rejects(
        c.query('insert into products (id, company_id, identifier, name, created_at, updated_at) values (gen_random_uuid(), $1, $2, $3, now(), now())', [
          a.id,
          'sneaky',
          'Sneaky',
        ]),
        /row-level security/,
      );
      // Told one company, it sees exactly that company's rows.
      await c.query("select set_config('cradle.company_id', $1, false)", [b.id]);
      const own = await c.query<{ company_id: string }>('select company_id from reports');
      assert.deepEqual([...new Set(own.rows.map((r) => r.company_id))], [b.id]);
      assert.equal(own.rows.length, 2);
    });
  });

  it("keeps a query that forgets its company filter inside the scope's company", async () => {
    const all = { companyId: reports.companyId };
    assert.deepEqual(companyIdsOf(await inCompany(a.id, () => database.db.select(all).from(reports))), [a.id]);
    assert.deepEqual(companyIdsOf(await inCompany(b.id, () => database.db.select(all).from(reports))), [b.id]);
    assert.deepEqual(await runInRequestScope(async () => await database.db.select(all).from(reports)), []);
    assert.deepEqual(companyIdsOf(await asSystem(() => database.db.select(all).from(reports))), [a.id, b.id].sort());
  });

  it("refuses to write another company's row from a company's scope, in and out of a transaction", async () => {
    await assert.rejects(
      inCompany(a.id, () => database.db.insert(products).values(planted())),
      (e: Error & { cause?: { message?: string } }) => /row-level security/.test(`${e.message} ${e.cause?.message ?? ''}`),
    );
    await assert.rejects(
      inCompany(a.id, () => database.db.transaction((tx) => tx.insert(products).values(planted()))),
      (e: Error & { cause?: { message?: string } }) => /row-level security/.test(`${e.message} ${e.cause?.message ?? ''}`),
    );
    const found = await asSystem(() =>
      database.db
        .select()
        .from(products)
        .where(sql`${products.identifier} = 'planted'`),
    );
    assert.deepEqual(found, []);
  });

  it('lets every company read the shared advisory store and only system code write it', async () => {
    await asSystem(() =>
      database.db.execute(
        sql`insert into vulndb_kev (cve_id, vendor_project, product, name, date_added, required_action, known_ransomware) values ('CVE-2099-7777', 'v', 'p', 'n', '2026-01-01', 'a', 'Unknown')`,
      ),
    );
    const seen = await inCompany(a.id, () => database.db.execute(sql`select cve_id from vulndb_kev where cve_id = 'CVE-2099-7777'`));
    assert.equal(rowsOf<{ cve_id: string }>(seen).length, 1);
    for (const statement of [
      sql`insert into vulndb_kev (cve_id, vendor_project, product, name, date_added, required_action, known_ransomware) values ('CVE-2099-7778', 'v', 'p', 'n', '2026-01-01', 'a', 'Unknown')`,
      sql`insert into vulndb_records (id, source, modified, aliases, severity, "references", cwes, sha256) values ('PLANTED-1', 'osv', now(), '{}', '[]', '[]', '{}', 'x')`,
    ]) {
      await assert.rejects(
        inCompany(a.id, () => database.db.execute(statement)),
        (e: Error & { cause?: { message?: string } }) => /row-level security/.test(`${e.message} ${e.cause?.message ?? ''}`),
      );
    }
    // An update or delete from a company's scope touches no row.
    const updated = await inCompany(a.id, () =>
      database.db.execute(sql`update vulndb_kev set name = 'changed' where cve_id = 'CVE-2099-7777' returning cve_id`),
    );
    assert.equal(rowsOf(updated).length, 0);
    const deleted = await inCompany(a.id, () => database.db.execute(sql`delete from vulndb_kev where cve_id = 'CVE-2099-7777' returning cve_id`));
    assert.equal(rowsOf(deleted).length, 0);
  });

  it('gives each checkout the scope of the code that asked for it, under interleaved load on a small pool', async () => {
    const all = { companyId: reports.companyId };
    const runs = Array.from({ length: 60 }, (_, i) => {
      const company = [a, b, undefined][i % 3];
      const read = () => database.db.select(all).from(reports).orderBy(asc(reports.createdAt));
      return (company ? inCompany(company.id, read) : runInRequestScope(async () => await read())).then((rows) => ({
        expected: company?.id,
        seen: companyIdsOf(rows),
      }));
    });
    for (const { expected, seen } of await Promise.all(runs)) assert.deepEqual(seen, expected ? [expected] : []);
  });
});

describe('row-level security behind a request', { skip }, () => {
  let app: FastifyInstance;

  before(async () => {
    if (skip) return;
    app = await buildApp({ config: testConfig(), database, rateLimiter: createMemoryRateLimiter() });
    // A handler that authenticates and then forgets to filter by company: the wall still holds.
    app.get('/__test/every-report', async (req) => {
      await currentSession(req);
      return database.db.select({ companyId: reports.companyId }).from(reports);
    });
    // A handler that never authenticates at all sees nothing.
    app.get('/__test/anonymous', async () => database.db.select({ companyId: reports.companyId }).from(reports));
    // Opening a request for a second company is refused.
    app.get('/__test/two-companies', async () => {
      openRequestScope(a.id);
      openRequestScope(b.id);
      return 'unreachable';
    });
    await app.ready();
  });

  after(async () => {
    await app?.close();
  });

  it("shows a signed-in company only its own rows even when the handler's query has no company filter", async () => {
    const admin = await makeAdmin(database.db, b.slug);
    const signIn = await app.inject({
      method: 'POST',
      url: '/api/session',
      headers: { 'content-type': 'application/json' },
      payload: { email: admin.email, password: TEST_PASSWORD },
    });
    assert.equal(signIn.statusCode, 204);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0] as string;
    const seen = (await app.inject({ url: '/__test/every-report', headers: { cookie } })).json<{ companyId: string }[]>();
    assert.equal(seen.length, 2);
    assert.deepEqual(companyIdsOf(seen), [b.id]);
    assert.deepEqual((await app.inject({ url: '/__test/every-report' })).json(), []);
    assert.deepEqual((await app.inject({ url: '/__test/anonymous' })).json(), []);
  });

  it("tells each connection its scope once: one company's API requests in a row re-tell none (system work has its own lane)", async () => {
    const admin = await makeAdmin(database.db, a.slug);
    const { key } = await createKey(database.db, { actor: { type: 'user', id: admin.id } }, a.id, { name: 'lanes' });
    const request = () => app.inject({ url: '/api/v1/vulnerabilities/export', headers: { authorization: `Bearer ${key}` } });
    assert.equal((await request()).statusCode, 200);
    let told = 0;
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      if (text?.includes("set_config('role'")) told++;
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      const answers = await Promise.all(
        Array.from({ length: 5 }, async () => {
          const seen: number[] = [];
          for (let i = 0; i < 12; i++) seen.push((await request()).json<{ reports: unknown[] }>().reports.length);
          return seen;
        }),
      );
      assert.deepEqual(new Set(answers.flat()), new Set([3]), "every answer holds exactly the company's three reports");
    } finally {
      pg.Client.prototype.query = query;
    }
    // 60 requests, each with a key lookup and an audit row as system and a query for its company:
    // only connections not yet told (at most the pool's five) may be told anything.
    assert.ok(told <= 5, `${told} scope settings for 60 requests`);
  });

  it('refuses to open one request for two companies', async () => {
    const res = await app.inject({ url: '/__test/two-companies' });
    assert.equal(res.statusCode, 500);
    assert.doesNotMatch(res.body, /unreachable/);
  });
});

describe('row-level security with the login a deployment gives Cradle', { skip }, () => {
  const server = process.env.DATABASE_URL as string;
  const suffix = randomUUID().slice(0, 8);
  const made: { role: string; db: string }[] = [];

  /** A fresh database owned by a new login role with `attributes`, opened and migrated as that login. */
  async function asLogin(attributes: string): Promise<Database> {
    const role = `cradle_login_${suffix}_${made.length}`;
    const name = `cradle_owned_${suffix}_${made.length}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    try {
      await admin.query(`create role ${role} login ${attributes}`);
      await admin.query(`create database ${name} owner ${role}`);
    } finally {
      await admin.end();
    }
    made.push({ role, db: name });
    const url = new URL(server);
    url.username = role;
    url.pathname = `/${name}`;
    const opened = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
    await opened.migrate();
    return opened;
  }

  after(async () => {
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    for (const { role, db } of made) {
      await admin.query(`drop database if exists ${db} with (force)`);
      await admin.query(`drop role if exists ${role}`);
    }
    await admin.end();
  });

  it('uses an owner login without bypass as it is: the forced policies bind the owner of the tables', async () => {
    const owned = await asLogin('nosuperuser nobypassrls');
    try {
      assert.equal(owned.rowSecurity(), 'enforced');
      const c = await asSystem(() => makeCompany(owned.db, { name: 'Owned' }));
      await asSystem(() => fileReport(owned.db, operatorContext(), c, { description: 'Owned report: command injection in the web UI.' }, 'api'));
      const who = rowsOf<{ role: string }>(await owned.db.execute(sql`select current_user as role`));
      assert.match(who[0]?.role ?? '', /^cradle_login_/);
      assert.deepEqual(await runInRequestScope(async () => await owned.db.select({ id: reports.id }).from(reports)), []);
      assert.equal((await inCompany(c.id, () => owned.db.select({ id: reports.id }).from(reports))).length, 1);
    } finally {
      await owned.close();
    }
  });

  it('says "bypassed" when the login bypasses row-level security and cannot create the role to drop to', async () => {
    const bypassing = await asLogin('nosuperuser bypassrls nocreaterole');
    try {
      assert.equal(bypassing.rowSecurity(), 'bypassed');
    } finally {
      await bypassing.close();
    }
  });
});
