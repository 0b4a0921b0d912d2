import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { selectLargeRows, selectRows } from '../../src/db/sql-rows.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

// selectLargeRows answers large reads in the transport each driver answers fastest (ADR 0029 and its
// addendum): one JSON value on PGlite, the rows as they are on PostgreSQL. For the column types it
// is meant for, the two must give the same values, ordered as asked, inside a transaction too.

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

const ROWS = sql`
  select * from (values
    (2, 'b'::text, '5b6e0c4e-8f5e-4f0a-9a5e-2b3c4d5e6f70'::uuid, 1.5::float8, true, array['x', 'y"z']::text[], '{"k": [1, {"n": null}]}'::jsonb, null::text),
    (1, 'a', '00000000-0000-4000-8000-000000000001', -0.25, false, '{}', '[]', 'set')
  ) as t(ordinal, name, id, score, flag, tags, doc, maybe)`;

describe('selectLargeRows', () => {
  it('answers what selectRows answers for text, uuid, int4, float8, booleans, arrays, jsonb and nulls, in the order asked', async () => {
    const plain = await selectRows<Record<string, unknown>>(d.db, sql`select * from (${ROWS}) q order by q.ordinal`);
    assert.equal(plain.length, 2);
    assert.deepEqual(await selectLargeRows(d.db, ROWS, sql`q.ordinal`), plain);
    assert.deepEqual(await selectLargeRows(d.db, ROWS, sql`q.ordinal desc`), [...plain].reverse());
    assert.deepEqual(await d.db.transaction((tx) => selectLargeRows(tx, ROWS, sql`q.ordinal`)), plain);
    assert.deepEqual(await selectLargeRows(d.db, sql`select 1 as n where false`), []);
  });

  it("takes the JSON transport on PGlite only (an int8 shows which: a JSON number, or node-postgres's string)", async () => {
    const [row] = await selectLargeRows<{ n: unknown }>(d.db, sql`select 5::int8 as n`);
    assert.deepEqual(row, { n: d.kind === 'pglite' ? 5 : '5' });
    const [inTx] = await d.db.transaction((tx) => selectLargeRows<{ n: unknown }>(tx, sql`select 5::int8 as n`));
    assert.deepEqual(inTx, { n: d.kind === 'pglite' ? 5 : '5' });
  });
});
