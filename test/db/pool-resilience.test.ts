// The PostgreSQL pool under a server that ends its connections (shutdown, failover, an operator's
// pg_terminate_backend): the process must not crash and the pool must not shrink for good. Found
// by `npm run chaos`, where a transaction's `begin` failing leaked its connection.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/client.js';
import { asSystem, inCompany } from '../../src/db/tenant-scope.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { makeCompany } from '../helpers/factories.js';

const skip = process.env.DATABASE_URL ? false : 'needs a PostgreSQL server (set DATABASE_URL)';

let holder: TestDatabase;
let database: Database;

before(async () => {
  if (skip) return;
  holder = await createTestDatabase();
  // The smallest pool: two connections per lane, so one leaked connection would show.
  database = await openDatabase({ databaseUrl: holder.url, poolSize: 1 });
  await database.migrate();
});

after(async () => {
  await database?.close();
  await holder?.drop();
});

describe('the pool when the server ends its connections', { skip }, () => {
  it('keeps working through terminated connections, in transactions and out, on both lanes', { timeout: 120_000 }, async () => {
    const company = await makeCompany(database.db);
    const admin = new pg.Client({ connectionString: holder.url });
    await admin.connect();
    let stop = false;
    let terminated = 0;
    // Ends every connection of this database but its own, over and over, while work goes on.
    const killer = (async () => {
      while (!stop) {
        const r = await admin.query(
          'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
        );
        terminated += (r.rows[0] as { n: number }).n;
        await sleep(3);
      }
    })();
    let failed = 0;
    const work = async (i: number) => {
      const run = () => database.db.transaction(async (tx) => tx.execute(sql`select ${i}::int as i`));
      await (i % 2 ? asSystem(run) : inCompany(company.id, run)).catch(() => failed++);
      await (i % 2 ? asSystem(() => database.db.execute(sql`select 1`)) : inCompany(company.id, () => database.db.execute(sql`select 1`))).catch(
        () => failed++,
      );
    };
    for (let i = 0; i < 300; i++) await work(i);
    stop = true;
    await killer;
    await admin.end();
    assert.ok(terminated > 0, 'connections were terminated while the work ran');
    assert.ok(failed > 0, 'some work met a terminated connection');
    // Every lane still has its connections: a leaked one would make these wait for ever.
    const again = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2
          ? asSystem(() => database.db.transaction((tx) => tx.execute(sql`select 1`)))
          : inCompany(company.id, () => database.db.transaction((tx) => tx.execute(sql`select 1`))),
      ),
    );
    assert.equal(again.length, 8);
  });
});
