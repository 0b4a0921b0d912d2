// Statements started together on one connection (Promise.all inside a transaction) are sent one
// after the other by Cradle, not left to pg's own queue, which is deprecated and goes in pg 9
// ("Calling client.query() when the client is already executing a query").
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { type Database, openDatabase } from '../../src/db/client.js';
import { selectRows } from '../../src/db/sql-rows.js';
import { inCompany } from '../../src/db/tenant-scope.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { makeCompany } from '../helpers/factories.js';

const skip = process.env.DATABASE_URL ? false : 'needs a PostgreSQL server (set DATABASE_URL)';

let holder: TestDatabase;
let database: Database;
const warnings: string[] = [];
const onWarning = (w: Error) => warnings.push(w.message);

before(async () => {
  if (skip) return;
  process.on('warning', onWarning);
  holder = await createTestDatabase();
  database = await openDatabase({ databaseUrl: holder.url, poolSize: 2 });
  await database.migrate();
});

after(async () => {
  process.off('warning', onWarning);
  await database?.close();
  await holder?.drop();
});

describe('statements started together on one connection', { skip }, () => {
  it('run one at a time in the order asked, a failure in between included, with no pg queue warning', async () => {
    const company = await makeCompany(database.db);
    const outcome = await inCompany(company.id, () =>
      database.db.transaction(async (tx) => {
        await tx.execute(sql`create temporary table asked (n serial primary key, v int not null) on commit drop`);
        const inserted = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            selectRows<{ n: number; v: number }>(tx, sql`insert into asked (v) select ${i}::int from pg_sleep(0.002) returning n, v`),
          ),
        );
        const pairs = inserted.map((rows) => rows[0]!);
        // A savepoint keeps the transaction usable after the failing statement.
        await tx.execute(sql`savepoint before_failure`);
        const settled = await Promise.allSettled([
          tx.execute(sql`select 1 / 0`),
          tx.execute(sql`rollback to savepoint before_failure`),
          selectRows<{ c: number }>(tx, sql`select count(*)::int as c from asked`),
        ]);
        return { pairs, settled };
      }),
    );
    assert.deepEqual(
      outcome.pairs.map((p) => p.v),
      outcome.pairs.map((_, i) => i),
    );
    assert.deepEqual(
      outcome.pairs.map((p) => p.n),
      outcome.pairs.map((_, i) => i + 1),
      'each insert ran after the one asked before it',
    );
    assert.deepEqual(
      outcome.settled.map((s) => s.status),
      ['rejected', 'fulfilled', 'fulfilled'],
    );
    const counted = outcome.settled[2];
    assert.equal(counted.status === 'fulfilled' ? counted.value[0]?.c : -1, 12);
    assert.deepEqual(
      warnings.filter((w) => w.includes('already executing a query')),
      [],
    );
  });
});
