import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite, type QueryOptions, type Results } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { selectRows } from '../../src/db/sql-rows.js';
import { parsersToApply, TEXT_RESULT_OIDS } from '../../src/db/pglite-parsers.js';
import { createTestDatabase, migratedImage, type TestDatabase } from '../helpers/db.js';

// One row of every type drizzle asks PGlite to return as text, beside types PGlite parses itself.
const EVERY_TYPE = sql`select '2026-11-22 10:11:12.345'::timestamp as ts, '2026-11-22 10:11:12.345+00'::timestamptz as tstz,
  '1 day 02:03:04'::interval as iv, '2026-11-22'::date as d, array[1.50, 2]::numeric[] as nums,
  array['2026-01-01 00:00:00'::timestamp] as tss, array['2026-01-01 00:00:00+00'::timestamptz] as tstzs,
  array['1 hour'::interval] as ivs, array['2026-01-01'::date] as ds,
  42::int4 as n, true as b, '{"a": [1]}'::jsonb as j, array['x', 'y'] as texts, 2.5::numeric as num`;

type Client = {
  query<T>(q: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  transaction<T>(fn: (tx: Client) => Promise<T>): Promise<T>;
};

/**
 * The embedded database runs in a worker (ADR 0018) whose instance holds the date and time parsers
 * drizzle passes per query; drizzle's per-query copy stays on the main thread (PGlite spreads its
 * whole parser table whenever a query brings its own: 120 µs per query), and any other per-query
 * parser runs on the main thread. The answers must be exactly those of an unchanged PGlite.
 */
describe(
  'PGlite answers through the worker, without per-query parsers (src/db/pglite-parsers.ts)',
  { skip: process.env.DATABASE_URL ? 'embedded database only' : false },
  () => {
    let plain: PGlite;
    let database: TestDatabase;
    let client: Client;
    before(async () => {
      plain = await PGlite.create({ loadDataDir: await migratedImage() });
      database = await createTestDatabase();
      client = (database.db as unknown as { $client: Client }).$client;
    });
    after(async () => {
      await plain.close();
      await database?.drop();
    });

    it("answers exactly as PGlite with drizzle's per-query parsers does, in and out of transactions", async () => {
      const expected = (await drizzle(plain).execute(EVERY_TYPE)).rows;
      const got = await selectRows<Record<string, unknown>>(database.db, EVERY_TYPE);
      assert.deepEqual(got, expected);
      // The text PostgreSQL sent for the date and time types, parsed values for the rest.
      assert.equal(got[0]?.tstz, '2026-11-22 10:11:12.345+00');
      assert.equal(got[0]?.d, '2026-11-22');
      assert.equal(got[0]?.n, 42);
      assert.deepEqual(got[0]?.texts, ['x', 'y']);
      const inTx = await database.db.transaction((tx) => selectRows(tx, EVERY_TYPE));
      assert.deepEqual(inTx, expected);
    });

    it("sends none of drizzle's parsers: the worker's table holds them", () => {
      const drizzles = Object.fromEntries(TEXT_RESULT_OIDS.map((oid) => [oid, (value: string) => value]));
      assert.equal(parsersToApply(drizzles), undefined);
      assert.equal(parsersToApply(undefined), undefined);
      const other = parsersToApply({ ...drizzles, 23: (v: string) => Number(v) * 2 });
      assert.deepEqual([...(other?.keys() ?? [])], [23]);
    });

    it('runs a per-query parser the instance does not hold, for another type or doing something else, on the text', async () => {
      const other = await client.query<{ n: unknown }>('select 1::int4 as n', [], { parsers: { 23: (v: string) => `n${v}` } });
      assert.equal(other.rows[0]?.n, 'n1');
      const changed = await client.query<{ t: unknown }>("select '2026-01-01 00:00:00+00'::timestamptz as t", [], {
        parsers: { 1184: (v: string) => `<${v}>` },
      });
      assert.equal(changed.rows[0]?.t, '<2026-01-01 00:00:00+00>');
      const arrays = await client.query<unknown[]>('select 3::int4 as n, null::int4 as z', [], { rowMode: 'array', parsers: { 23: (v: string) => `n${v}` } });
      assert.deepEqual(arrays.rows[0], ['n3', null]);
      const inTx = await client.transaction((tx) => tx.query<{ n: unknown }>('select 2::int4 as n', [], { parsers: { 23: (v: string) => `n${v}` } }));
      assert.equal(inTx.rows[0]?.n, 'n2');
      // The next query without parsers gets PGlite's own again.
      assert.equal((await client.query<{ n: unknown }>('select 4::int4 as n')).rows[0]?.n, 4);
    });
  },
);
