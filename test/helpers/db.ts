import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/client.js';
import './secret-keys.js';

/**
 * A fresh, migrated database for one test file: PGlite in memory by default, or, when
 * DATABASE_URL is set, a new database created on that server (dropped again by `drop()`).
 * Test files run in parallel processes, so each gets its own database.
 */
export type TestDatabase = Database & {
  url: string | undefined;
  /**
   * Runs a DDL statement (a failure-injecting trigger, a renamed table) with the login's own
   * rights: on PostgreSQL Cradle's queries run as a role without DDL (ADR 0009).
   */
  ddl(statement: string): Promise<void>;
  drop(): Promise<void>;
};

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const database = await openDatabase({});
    await database.migrate();
    return {
      ...database,
      url: undefined,
      ddl: async (statement) => void (await database.db.execute(sql.raw(statement))),
      drop: () => database.close(),
    };
  }
  const name = `cradle_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 5 });
  await database.migrate();
  return {
    ...database,
    url: url.toString(),
    async ddl(statement) {
      const c = new pg.Client({ connectionString: url.toString() });
      await c.connect();
      try {
        await c.query(statement);
      } finally {
        await c.end();
      }
    },
    async drop() {
      await database.close();
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
