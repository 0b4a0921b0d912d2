import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Where a backup is restored to in a test: a new data folder (embedded database) or a new, empty
 * PostgreSQL database on the run's server. `env` is what the CLI and the restored server run with;
 * `isEmpty` tells whether the target is still untouched.
 */
export type RestoreTarget = { env: Record<string, string>; isEmpty(): Promise<boolean>; drop(): Promise<void> };

export async function newRestoreTarget(): Promise<RestoreTarget> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dir = join(mkdtempSync(join(tmpdir(), 'cradle-restore-')), 'data');
    return {
      env: { DATA_DIR: dir },
      isEmpty: async () => !existsSync(dir) || readdirSync(dir).length === 0,
      drop: async () => rmSync(join(dir, '..'), { recursive: true, force: true }),
    };
  }
  const name = `cradle_restore_${randomBytes(6).toString('hex')}`;
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>, db?: string): Promise<T> => {
    const url = new URL(serverUrl);
    if (db) url.pathname = `/${db}`;
    const c = new pg.Client({ connectionString: url.toString() });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  // template0: nothing in it, whatever the server's template1 holds.
  await admin((c) => c.query(`create database ${name} template template0`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString() },
    isEmpty: () =>
      admin(async (c) => {
        const r = await c.query<{ n: number }>(
          "select count(*)::int as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg_toast%'",
        );
        return r.rows[0]?.n === 0;
      }, name),
    drop: () => admin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}
