import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PGlite, type QueryOptions } from '@electric-sql/pglite';
import { migratedImage } from '../helpers/db.js';
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/pglite';
import { leanParserClient } from '../../src/db/pglite-parsers.js';

// One row of every type drizzle asks PGlite to return as text, beside types PGlite parses itself.
const EVERY_TYPE = sql`select '2026-11-22 10:11:12.345'::timestamp as ts, '2026-11-22 10:11:12.345+00'::timestamptz as tstz,
  '1 day 02:03:04'::interval as iv, '2026-11-22'::date as d, array[1.50, 2]::numeric[] as nums,
  array['2026-01-01 00:00:00'::timestamp] as tss, array['2026-01-01 00:00:00+00'::timestamptz] as tstzs,
  array['1 hour'::interval] as ivs, array['2026-01-01'::date] as ds,
  42::int4 as n, true as b, '{"a": [1]}'::jsonb as j, array['x', 'y'] as texts, 2.5::numeric as num`;

/**
 * The embedded database's parser table holds the date and time parsers drizzle passes per query,
 * and queries leave drizzle's copy out (PGlite spreads its whole parser table whenever a query brings
 * its own: 120 µs per query). The answers must be exactly those of an unchanged PGlite.
 */
describe('PGlite queries without per-query parsers (src/db/pglite-parsers.ts)', () => {
  let plain: PGlite;
  let held: PGlite;
  const passed: (QueryOptions | undefined)[] = [];
  before(async () => {
    plain = await PGlite.create({ loadDataDir: await migratedImage() });
    held = await PGlite.create({ loadDataDir: await migratedImage() });
  });
  after(async () => {
    await plain.close();
    await held.close();
  });

  /** `held`, recording the options each query reaches PGlite with. */
  function recorded(): PGlite {
    return new Proxy(held, {
      get(t, prop) {
        if (prop === 'query') {
          return (q: string, params?: unknown[], options?: QueryOptions) => {
            passed.push(options);
            return t.query(q, params, options);
          };
        }
        if (prop === 'transaction') {
          return <T>(fn: (tx: unknown) => Promise<T>) =>
            t.transaction((tx) =>
              fn(
                new Proxy(tx, {
                  get(x, p) {
                    if (p === 'query') {
                      return (q: string, params?: unknown[], options?: QueryOptions) => {
                        passed.push(options);
                        return x.query(q, params, options);
                      };
                    }
                    const v: unknown = Reflect.get(x, p);
                    return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(x) : v;
                  },
                }),
              ),
            );
        }
        const v: unknown = Reflect.get(t, prop);
        return typeof v === 'function' && prop !== 'constructor' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
  }

  it("answers exactly as PGlite with drizzle's per-query parsers does, in and out of transactions", async () => {
    const reference = drizzle(plain);
    const lean = drizzle(leanParserClient(held));
    const expected = (await reference.execute(EVERY_TYPE)).rows;
    const got = (await lean.execute(EVERY_TYPE)).rows;
    assert.deepEqual(got, expected);
    // The text PostgreSQL sent for the date and time types, parsed values for the rest.
    assert.equal((got[0] as Record<string, unknown>).tstz, '2026-11-22 10:11:12.345+00');
    assert.equal((got[0] as Record<string, unknown>).d, '2026-11-22');
    assert.equal((got[0] as Record<string, unknown>).n, 42);
    assert.deepEqual((got[0] as Record<string, unknown>).texts, ['x', 'y']);
    const inTx = await lean.transaction(async (tx) => (await tx.execute(EVERY_TYPE)).rows);
    assert.deepEqual(inTx, expected);
  });

  it("leaves drizzle's parsers out of every query, in and out of transactions", async () => {
    passed.length = 0;
    const db = drizzle(leanParserClient(recorded()));
    await db.execute(EVERY_TYPE);
    await db.execute(sql`select now() as t`);
    await db.transaction(async (tx) => {
      await tx.execute(sql`select now() as t`);
    });
    // The last two reached PGlite inside the transaction (drizzle's begin and commit come from PGlite itself).
    assert.ok(passed.length >= 3, `queries seen: ${passed.length}`);
    assert.deepEqual(
      passed.map((o) => o?.parsers),
      passed.map(() => undefined),
    );
    assert.ok(
      passed.every((o) => o?.rowMode !== undefined),
      'the other options still travel',
    );
  });

  it("passes drizzle's parsers on again should the instance's table no longer hold them", async () => {
    const other = await PGlite.create({ loadDataDir: await migratedImage() });
    try {
      const lean = drizzle(leanParserClient(other));
      // A table replaced with PGlite's own parsers (timestamps as Date objects, arrays parsed).
      const fresh = await PGlite.create({ loadDataDir: await migratedImage() });
      other.parsers = { ...fresh.parsers };
      await fresh.close();
      assert.deepEqual((await lean.execute(EVERY_TYPE)).rows, (await drizzle(plain).execute(EVERY_TYPE)).rows);
    } finally {
      await other.close();
    }
  });

  it('keeps a per-query parser the instance does not hold, for another type or doing something else', async () => {
    const lean = leanParserClient(held);
    const other = await lean.query<{ n: unknown }>('select 1::int4 as n', [], { parsers: { 23: (v: string) => `n${v}` } });
    assert.equal(other.rows[0]?.n, 'n1');
    const changed = await lean.query<{ t: unknown }>("select '2026-01-01 00:00:00+00'::timestamptz as t", [], { parsers: { 1184: () => 'changed' } });
    assert.equal(changed.rows[0]?.t, 'changed');
    const inTx = await lean.transaction((tx) => tx.query<{ n: unknown }>('select 2::int4 as n', [], { parsers: { 23: (v: string) => `n${v}` } }));
    assert.equal(inTx.rows[0]?.n, 'n2');
  });
});
