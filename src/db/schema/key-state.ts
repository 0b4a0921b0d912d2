import { sql } from 'drizzle-orm';
import { bigint, boolean, check, pgTable } from 'drizzle-orm/pg-core';

/**
 * One row: a counter that database triggers raise in the same transaction as any change to what
 * authenticating an API key reads (an `api_keys` row changed or deleted other than its last-use
 * fields, any `companies` row changed or deleted). The in-process key cache
 * (src/modules/keys/key-cache.ts, ADR 0011) reads it to know whether its entries are still current.
 * The triggers also `NOTIFY cradle_key_state`, which the embedded database delivers in-process.
 */
export const keyStateVersion = pgTable(
  'key_state_version',
  {
    one: boolean('one').primaryKey().default(true),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [check('key_state_version_one_row', sql`${t.one}`)],
);
