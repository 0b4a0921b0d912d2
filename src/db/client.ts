import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { countNotifiedVersions, NOTIFY_DATA_VERSIONS_SETTING } from './data-versions.js';
import { type Listen, postgresListener } from './notifications.js';
import { leanParserClient } from './pglite-parsers.js';
import * as schema from './schema/index.js';
import { laneSizes, prepareAppRole, ScopedPool } from './scoped-pool.js';
export { APP_ROLE, laneSizes } from './scoped-pool.js';

export type Schema = typeof schema;
/** The one database type every verb sees, whichever driver is underneath. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema>;
/** Either the database or an open transaction: verbs that only read accept both. */
export type Executor = Db | Tx;

export type Database = {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Runs the checked-in migrations (serialised across instances on PostgreSQL). */
  migrate(): Promise<void>;
  /** True when the database answers and every checked-in migration is applied. */
  ready(): Promise<boolean>;
  /**
   * Whether PostgreSQL's row-level security holds Cradle's own queries to one company (ADR 0009):
   * `enforced`, `bypassed` (the login may bypass it and Cradle could not drop to its own role), or
   * `embedded` (PGlite: one trusted process, no roles). Known after `migrate()`.
   */
  rowSecurity(): 'enforced' | 'bypassed' | 'embedded';
  /** PGlite only: an image of the data directory as it is now (see OpenOptions.image). */
  image?: () => Promise<Blob>;
  /**
   * Subscribes to a NOTIFY channel (the workers' wake-ups, src/db/notifications.ts). PostgreSQL:
   * one dedicated connection per instance, made at the first subscription; it hears every instance.
   */
  listen: Listen;
  close(): Promise<void>;
};

// src/db/client.ts and dist/db/client.js sit at the same depth, so this resolves from both.
export const migrationsFolder = fileURLToPath(new URL('../../src/db/migrations', import.meta.url));

// Arbitrary constant: the PostgreSQL advisory lock key that serialises migrations between instances.
const MIGRATION_LOCK_KEY = 7_260_911;

async function journalLength(): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const journal = JSON.parse(await readFile(`${migrationsFolder}/meta/_journal.json`, 'utf8')) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

async function appliedCount(db: Db): Promise<number> {
  const rows = await db.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
  return Number((rows as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0);
}

/**
 * PGlite's own start parameters plus a 16 MB buffer pool instead of PostgreSQL's 128 MB: the pool
 * lives in the WASM heap, which never shrinks, and it was most of the idle memory (measured 316 MB
 * resident with the default, 179 MB with 16 MB). Reads below the pool still hit the OS page cache.
 */
const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * PGlite's PostgreSQL is WebAssembly. V8 compiles each function lazily with its baseline compiler
 * (Liftoff) on first call, then recompiles the busy ones with its optimising compiler (TurboFan) on
 * background threads, whose working memory the process keeps: measured 50-60 MiB more resident at
 * idle and at the peak of a 10,000-component SBOM push, for a steady-state push 0-15 % faster
 * (ADR 0013). So the process keeps to Liftoff; the flag must be set before PGlite compiles its
 * module and applies to WebAssembly compiled later in this process. A liftoff flag given on the
 * command line (`node --no-liftoff-only dist/main.js`) is respected instead.
 */
function preferBaselineWasmCompiler(): void {
  if (process.execArgv.some((a) => a.includes('liftoff'))) return;
  setFlagsFromString('--liftoff-only');
}

/** One full garbage collection, now (`gc` is exposed to a fresh context only, not to Cradle's code). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

export type OpenOptions = {
  /** DATA_DIR: PGlite keeps its files in `{dataDir}/pgdata`; undefined or `memory://` for in memory. */
  dataDir?: string | undefined;
  databaseUrl?: string | undefined;
  poolSize?: number;
  /**
   * In memory only: start from this PGlite data directory image (`dumpDataDir()`) instead of a new
   * cluster. The test suite opens each file's database from one migrated image.
   */
  image?: Blob | undefined;
};

/** Opens PostgreSQL when a URL is given, else PGlite in `dataDir` (in memory when none). */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const expected = await journalLength();
  if (opts.databaseUrl) {
    const lanes = laneSizes(opts.poolSize ?? 10);
    const pool = new ScopedPool({ connectionString: opts.databaseUrl, max: lanes.company });
    const systemLane = new ScopedPool({ connectionString: opts.databaseUrl, max: lanes.system });
    pool.systemLane = systemLane;
    for (const lane of [pool, systemLane]) {
      // An idle client that errors (server restart) must not crash the process; the pool replaces it.
      lane.on('error', () => undefined);
      // Nor may a checked-out one, which has no listener of pg-pool's between its owner's queries:
      // the server ending it (shutdown, failover) would emit an unheard 'error' and end the process,
      // even in the instant between connecting and being handed out (an end that arrives in the same
      // packet as "ready"). Its next query fails instead, and the transaction around it rolls back.
      // 'connect' is emitted synchronously for each new client, before anyone can use it.
      lane.on('connect', (client) => client.on('error', () => undefined));
    }
    const db = drizzlePg(pool, { schema }) as unknown as Db;
    const listener = postgresListener(opts.databaseUrl);
    let security: 'enforced' | 'bypassed' = 'enforced';
    return {
      db,
      kind: 'postgres',
      async migrate() {
        // The login's own connection, not a scoped one: migrations and grants are DDL.
        const client = await pool.connectAsLogin();
        try {
          await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
          try {
            await migratePg(drizzlePg(client, { schema }), { migrationsFolder });
            const role = await prepareAppRole(client);
            security = role === false ? 'bypassed' : 'enforced';
            pool.appRole = systemLane.appRole = role === false ? undefined : role;
          } finally {
            await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
          }
        } finally {
          client.release();
        }
      },
      ready: async () => (await appliedCount(db).catch(() => -1)) >= expected,
      rowSecurity: () => security,
      listen: listener.listen,
      close: async () => {
        await Promise.all([listener.close(), pool.end(), systemLane.end()]);
      },
    };
  }
  const dir = opts.dataDir && opts.dataDir !== 'memory://' ? join(opts.dataDir, 'pgdata') : undefined;
  const clusterExisted = dir !== undefined && existsSync(join(dir, 'PG_VERSION'));
  if (dir) mkdirSync(dir, { recursive: true });
  preferBaselineWasmCompiler();
  if (dir && opts.image) throw new Error('a data directory image opens in memory only');
  const open = () => PGlite.create({ ...(dir ? { dataDir: dir } : {}), ...(opts.image ? { loadDataDir: opts.image } : {}), startParams: PGLITE_START_PARAMS });
  let client = await open();
  if (dir && !clusterExisted) {
    // Creating the cluster (initdb, inside the WebAssembly heap) grew that heap to about 570 MiB,
    // which WebAssembly never gives back: a first start idled at 580-630 MiB resident, a restart at
    // about 200. So the first instance is closed and the database opened again; its heap goes back
    // to the system when V8 collects the instance, which nothing else would prompt soon (the JS heap
    // is small), hence one full collection here. Measured: 612 -> 230 MiB after migrations, for
    // about half a second once, on the very first start.
    await client.close();
    client = await open();
    collectGarbage();
  }
  // Queries leave out drizzle's per-query parsers; the instance holds them (src/db/pglite-parsers.ts).
  const lean = leanParserClient(client);
  const db = drizzlePglite(lean, { schema }) as unknown as Db;
  // Data versions are counted from notifications, not read (src/db/data-versions.ts, ADR 0015).
  await client.exec(`set ${NOTIFY_DATA_VERSIONS_SETTING} = 'on'`);
  await countNotifiedVersions(db, (channel, fn) => client.listen(channel, fn));
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(drizzlePglite(lean, { schema }), { migrationsFolder }),
    ready: async () => (await appliedCount(db).catch(() => -1)) >= expected,
    rowSecurity: () => 'embedded',
    image: () => client.dumpDataDir('none'),
    listen: (channel, fn) => client.listen(channel, fn),
    close: () => client.close(),
  };
}
