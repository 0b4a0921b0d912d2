import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { countNotifiedVersions, NOTIFY_DATA_VERSIONS_SETTING } from './data-versions.js';
import { type Listen, postgresListener } from './notifications.js';
import { RemotePglite } from './pglite-remote.js';
import { type RecycleOptions, startDatabaseRecycle } from './pglite-recycle.js';
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
  /** No statement of this process is in flight (none pending on PGlite's worker, no pooled PostgreSQL connection checked out). */
  idle(): boolean;
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
 * PGlite's WebAssembly stays on V8's baseline compiler (ADR 0013): set in the database's worker
 * before PGlite compiles, unless a liftoff flag was given on the command line
 * (`node --no-liftoff-only dist/main.js`), which is respected instead.
 */
const preferBaselineWasmCompiler = (): boolean => !process.execArgv.some((a) => a.includes('liftoff'));

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
  /** PGlite only, for the server: the database's thread gives its idle memory back (ADR 0020). */
  reclaimIdleMemory?: boolean | undefined;
  /**
   * PGlite in a data directory only, for the server: the database's worker is replaced when idle
   * and its WebAssembly heap far above its floor (src/db/pglite-recycle.ts, ADR 0026).
   */
  recycle?: RecycleOptions | undefined;
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
      idle: () => [pool, systemLane].every((lane) => lane.totalCount === lane.idleCount),
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
  if (dir && opts.image) throw new Error('a data directory image opens in memory only');
  const image = opts.image ? await opts.image.arrayBuffer() : undefined;
  // The instance lives in a worker thread (ADR 0018); drizzle's session talks to it through `client`.
  const open = () => RemotePglite.start({ dataDir: dir, image, liftoffOnly: preferBaselineWasmCompiler(), reclaimIdleMemory: opts.reclaimIdleMemory });
  let client = await open();
  if (dir && !clusterExisted) {
    // Creating the cluster (initdb, inside the WebAssembly heap) grew that heap to about 570 MiB,
    // which WebAssembly never gives back (ADR 0013, "The first start"). So the first instance is
    // closed and the database opened again in a new worker: the first worker's whole heap goes
    // back to the system when its thread ends.
    await client.close();
    client = await open();
  }
  const db = drizzlePglite(client as unknown as PGlite, { schema }) as unknown as Db;
  // Data versions are counted from notifications, not read (src/db/data-versions.ts, ADR 0015).
  await client.setSession(`set ${NOTIFY_DATA_VERSIONS_SETTING} = 'on'`);
  await countNotifiedVersions(db, (channel, fn) => client.listen(channel, fn));
  const recycling = dir && opts.recycle ? startDatabaseRecycle(client, opts.recycle) : undefined;
  return {
    db,
    kind: 'pglite',
    migrate: () => migratePglite(drizzlePglite(client as unknown as PGlite, { schema }), { migrationsFolder }),
    ready: async () => (await appliedCount(db).catch(() => -1)) >= expected,
    rowSecurity: () => 'embedded',
    idle: () => client.idle,
    image: () => client.dumpDataDir(),
    listen: (channel, fn) => client.listen(channel, fn),
    close: () => {
      recycling?.stop();
      return client.close();
    },
  };
}
