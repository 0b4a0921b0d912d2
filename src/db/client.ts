import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { countNotifiedVersions, NOTIFY_DATA_VERSIONS_SETTING } from './data-versions.js';
import { appliedCount, journalLength, migrationsFolder } from './migration-journal.js';
import type { Listen } from './notifications.js';
import { RemotePglite } from './pglite-remote.js';
import { type RecycleOptions, startDatabaseRecycle } from './pglite-recycle.js';
import * as schema from './schema/index.js';
export { migrationsFolder } from './migration-journal.js';

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
  // The PostgreSQL driver is loaded only when DATABASE_URL is set: a server on the embedded
  // database never keeps its code (ADR 0027).
  if (opts.databaseUrl) return (await import('./postgres-client.js')).openPostgres(opts.databaseUrl, opts.poolSize ?? 10, expected);
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
