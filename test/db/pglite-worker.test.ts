// The embedded database in its worker thread (ADR 0018): what crosses the port, in which order,
// and what happens when the worker ends.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../../src/db/client.js';
import { dataVersions } from '../../src/db/data-versions.js';
import { selectRows } from '../../src/db/sql-rows.js';
import { isDatabaseUnavailable, isUniqueViolation, sqlState } from '../../src/kernel/db-errors.js';
import { operatorContext } from '../../src/kernel/context.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { makeTenant } from '../helpers/access.js';
import { createTestDatabase, openMigratedDataDir, type TestDatabase } from '../helpers/db.js';

const skip = process.env.DATABASE_URL ? 'the embedded database only' : false;

describe('the embedded database in its worker', { skip }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
    await database.ddl('create table worker_probe (k text primary key, n int not null)');
  });
  after(() => database?.drop());

  it('brings a database error across with its SQLSTATE, constraint and detail', async () => {
    await database.db.execute(sql`insert into worker_probe values ('a', 1)`);
    const err = await database.db.execute(sql`insert into worker_probe values ('a', 2)`).then(
      () => assert.fail('a duplicate key was accepted'),
      (e: unknown) => e,
    );
    assert.equal(isUniqueViolation(err), true);
    const cause = (err as { cause: Record<string, unknown> }).cause;
    assert.ok(cause instanceof Error);
    assert.equal(cause['code'], '23505');
    assert.equal(cause['constraint'], 'worker_probe_pkey');
    assert.equal(cause['detail'], 'Key (k)=(a) already exists.');
    assert.equal(cause['table'], 'worker_probe');
    assert.match(String(cause['message']), /duplicate key value violates unique constraint "worker_probe_pkey"/);
    // The statement and its parameters stay in the worker.
    assert.equal(cause['params'], undefined);
  });

  it('holds other callers while a transaction is open, and rolls back a failed one whole', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inside!: () => void;
    const opened = new Promise<void>((r) => (inside = r));
    const tx = database.db.transaction(async (t) => {
      await t.execute(sql`insert into worker_probe values ('tx', 1)`);
      inside();
      await held;
      await t.execute(sql`update worker_probe set n = 2 where k = 'tx'`);
      order.push('transaction');
    });
    await opened;
    const outside = selectRows<{ n: number }>(database.db, sql`select n from worker_probe where k = 'tx'`).then((rows) => {
      order.push('outside');
      return rows;
    });
    // Let the outside query reach the worker, then let the transaction finish.
    await new Promise((r) => setImmediate(r));
    release();
    await tx;
    assert.deepEqual(await outside, [{ n: 2 }], 'the outside read saw the committed transaction whole');
    assert.deepEqual(order, ['transaction', 'outside']);

    await assert.rejects(
      database.db.transaction(async (t) => {
        await t.execute(sql`insert into worker_probe values ('gone', 1)`);
        await t.execute(sql`insert into worker_probe values ('gone', 2)`);
      }),
      (e: unknown) => sqlState(e) === '23505',
    );
    assert.deepEqual(await selectRows(database.db, sql`select k from worker_probe where k = 'gone'`), []);
    // A nested transaction (a savepoint) rolls back on its own.
    await database.db.transaction(async (t) => {
      await t.execute(sql`insert into worker_probe values ('outer', 1)`);
      await t.transaction(async (inner) => inner.execute(sql`insert into worker_probe values ('outer', 2)`)).catch(() => undefined);
    });
    assert.deepEqual(await selectRows(database.db, sql`select n from worker_probe where k = 'outer'`), [{ n: 1 }]);
  });

  it("delivers a commit's notifications before the statement's answer", async () => {
    const heard: string[] = [];
    const stop = await database.listen('cradle_worker_probe', (payload) => heard.push(payload));
    await database.db.execute(sql`select pg_notify('cradle_worker_probe', 'one')`);
    assert.deepEqual(heard, ['one']);
    await database.db.transaction(async (t) => {
      await t.execute(sql`select pg_notify('cradle_worker_probe', 'two')`);
      assert.deepEqual(heard, ['one'], 'not before the commit');
    });
    assert.deepEqual(heard, ['one', 'two']);
    await stop();
    await database.db.execute(sql`select pg_notify('cradle_worker_probe', 'three')`);
    assert.deepEqual(heard, ['one', 'two']);

    // The version counts the caches compare move as the write resolves (src/db/data-versions.ts).
    const { company } = await makeTenant(database.db);
    const before = (await dataVersions(database.db).after(company.id)).company(company.id, 'products');
    await upsertProduct(database.db, operatorContext(), company.id, { name: 'Probe', identifier: 'probe' });
    assert.equal((await dataVersions(database.db).after(company.id)).company(company.id, 'products'), before + 1);
  });

  it('refuses a parameter that cannot cross to the worker, and goes on answering', async () => {
    const client = (database.db as unknown as { $client: { query(q: string, p: unknown[]): Promise<{ rows: unknown[] }>; pending: Map<number, unknown> } })
      .$client;
    await assert.rejects(client.query('select $1::text as t', [() => 'x']), /could not be cloned/);
    // Nothing left waiting (a waiting call keeps the worker, and so the process, alive).
    assert.equal(client.pending.size, 0);
    assert.deepEqual((await client.query('select $1::text as t', ['x'])).rows, [{ t: 'x' }]);
  });

  it('makes an image that opens as another database with the same rows', async () => {
    await database.db.execute(sql`insert into worker_probe values ('imaged', 7)`);
    const copy = await openDatabase({ image: await database.image!() });
    try {
      assert.deepEqual(await selectRows(copy.db, sql`select n from worker_probe where k = 'imaged'`), [{ n: 7 }]);
    } finally {
      await copy.close();
    }
  });
});

describe('when the embedded database ends', { skip }, () => {
  let dataDir = '';
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cradle-pglite-worker-'));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  it('keeps what was committed when closed, and opens it again', async () => {
    const first = await openMigratedDataDir(dataDir);
    const { company } = await makeTenant(first.db);
    await first.close();
    await assert.rejects(first.db.execute(sql`select 1`), (e: { cause?: Error }) =>
      /the embedded database stopped: it was closed/.test(String(e.cause?.message)),
    );
    const again = await openDatabase({ dataDir });
    try {
      assert.deepEqual(await selectRows(again.db, sql`select slug from companies where id = ${company.id}`), [{ slug: company.slug }]);
    } finally {
      await again.close();
    }
  });

  it('fails the waiting statements and every later one with a clear error when its worker dies', async () => {
    const source = await createTestDatabase();
    const image = await source.image!();
    await source.drop();
    const crashing = await openDatabase({ image });
    const worker = (crashing.db as unknown as { $client: { worker: Worker } }).$client.worker;
    const waiting = crashing.db.execute(sql`select pg_sleep(5)`).then(
      () => assert.fail('the statement was answered'),
      (e: unknown) => e,
    );
    await new Promise((r) => setImmediate(r));
    await worker.terminate();
    const err = await waiting;
    assert.match(String((err as { cause?: Error }).cause?.message ?? (err as Error).message), /the embedded database stopped: its thread ended/);
    assert.equal(isDatabaseUnavailable(err), true, 'answered as an unavailable database (503), not a bad request');
    const later = await crashing.db.execute(sql`select 1`).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.equal(isDatabaseUnavailable(later), true);
    await crashing.close();
  });
});
