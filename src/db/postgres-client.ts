// The PostgreSQL side of openDatabase (src/db/client.ts), loaded only when DATABASE_URL is set: the
// driver (pg), drizzle's node-postgres session and its migrator are code a server on the embedded
// database never runs, and V8 would keep them for the life of the process (ADR 0027).
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { Database, Db } from './client.js';
import { appliedCount, MIGRATION_LOCK_KEY, migrationsFolder } from './migration-journal.js';
import { postgresListener } from './postgres-listener.js';
import * as schema from './schema/index.js';
import { laneSizes, prepareAppRole, ScopedPool } from './scoped-pool.js';

/** PostgreSQL at `databaseUrl`, `poolSize` connections split into lanes (ADR 0009); `expected` migrations. */
export function openPostgres(databaseUrl: string, poolSize: number, expected: number): Database {
  const lanes = laneSizes(poolSize);
  const pool = new ScopedPool({ connectionString: databaseUrl, max: lanes.company });
  const systemLane = new ScopedPool({ connectionString: databaseUrl, max: lanes.system });
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
  const listener = postgresListener(databaseUrl);
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
