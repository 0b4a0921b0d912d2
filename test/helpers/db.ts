import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { type Database, migrationsFolder, openDatabase } from '../../src/db/client.js';
import './secret-keys.js';

/**
 * A fresh, migrated database for one test file: PGlite in memory by default, or, when
 * DATABASE_URL is set, a new database created on that server (dropped again by `drop()`).
 * Test files run in parallel processes, so each gets its own database.
 *
 * Both start from one migrated copy made once per set of migrations (the first file to need it
 * makes it): a PGlite data directory image in the temporary folder, a template database on the
 * server. Starting a PGlite cluster and running every migration cost each file 2-8 s, a server
 * database about one; the copies are what `migrate()` would have built, and `migrate()` still runs
 * on each (finding nothing to apply). Migrations themselves are tested from an empty database in
 * test/db/ and the CLI tests.
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

/** Names the migrations and the PGlite build: a copy made from other ones is never used. */
function migrationsDigest(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, name.name);
      if (name.isDirectory()) walk(path);
      else hash.update(`${path.slice(migrationsFolder.length)}\0`).update(readFileSync(path));
    }
  };
  walk(migrationsFolder);
  const pglite = JSON.parse(readFileSync(new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url), 'utf8')) as { version: string };
  return hash.update(pglite.version).digest('hex').slice(0, 16);
}

/**
 * The migrated PGlite image, made by the first caller of this run (written whole, then renamed); also
 * the quick way to a plain PGlite instance (`PGlite.create({ loadDataDir })` skips making a cluster).
 */
export async function migratedImage(): Promise<Blob> {
  const dir = join(tmpdir(), 'cradle-test-images');
  const file = join(dir, `pglite-${migrationsDigest()}.tar`);
  try {
    return new Blob([readFileSync(file)]);
  } catch {
    const fresh = await openDatabase({});
    await fresh.migrate();
    const image = await fresh.image!();
    await fresh.close();
    mkdirSync(dir, { recursive: true });
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await image.arrayBuffer()));
    renameSync(partial, file);
    return image;
  }
}

// Arbitrary constant: the advisory lock under which one test process makes the template database.
const TEMPLATE_LOCK_KEY = 7_260_912;

/** The migrated template database on the server, made once (the rename marks it complete). */
async function templateDatabase(serverUrl: string, admin: pg.Client): Promise<string> {
  const name = `cradle_tpl_${migrationsDigest()}`;
  await admin.query('select pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount) return name;
    const building = `${name}_${randomBytes(4).toString('hex')}`;
    await admin.query(`create database ${building}`);
    const url = new URL(serverUrl);
    url.pathname = `/${building}`;
    const database = await openDatabase({ databaseUrl: url.toString(), poolSize: 2 });
    await database.migrate();
    await database.close();
    await admin.query(`alter database ${building} rename to ${name}`);
    // Templates of other migrations (an earlier checkout) are dropped when nothing uses them.
    const old = await admin.query<{ datname: string }>("select datname from pg_database where datname like 'cradle\\_tpl\\_%' and datname <> $1", [name]);
    for (const { datname } of old.rows) await admin.query(`drop database if exists ${datname}`).catch(() => undefined);
    return name;
  } finally {
    await admin.query('select pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
  }
}

/**
 * The embedded database in `dataDir` ({dataDir}/pgdata) as a first start leaves it, made from the
 * migrated image rather than by a new cluster and every migration; open, in this process.
 */
export async function openMigratedDataDir(dataDir: string): Promise<Database> {
  const pgdata = join(dataDir, 'pgdata');
  mkdirSync(pgdata, { recursive: true });
  const made = await PGlite.create({ dataDir: pgdata, loadDataDir: await migratedImage() });
  await made.close();
  const database = await openDatabase({ dataDir });
  await database.migrate();
  return database;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const database = await openDatabase({ image: await migratedImage() });
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
  try {
    // Another checkout's test run on the same server (other migrations, so another template) drops
    // templates it does not use; ours may go between finding it and copying it: make it again once.
    await admin.query(`create database ${name} template ${await templateDatabase(serverUrl, admin)}`).catch(async (e: unknown) => {
      if ((e as { code?: string }).code !== '3D000') throw e;
      await admin.query(`create database ${name} template ${await templateDatabase(serverUrl, admin)}`);
    });
  } finally {
    await admin.end();
  }
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
