import pg from 'pg';
import { statementsObserved, telemetrySink, timedStatement } from '../kernel/telemetry.js';
import { currentScope, type TenantScope } from './tenant-scope.js';

// PostgreSQL's side of src/db/client.ts: the connection pool that tells each connection the tenant
// scope of the code that checked it out (ADR 0009), and the role Cradle's queries run as.

/** The role Cradle's queries run as when its login may bypass row-level security (ADR 0009). */
export const APP_ROLE = 'cradle_app';

/**
 * Row-level security binds neither a superuser nor a BYPASSRLS role. When the login is one of
 * those (a development server's `postgres`, say), Cradle creates the role `cradle_app` (no login,
 * no bypass), grants it the data privileges it needs and runs every query as that role; the login
 * keeps DDL for migrations. A login without bypass is used as is: the tenant tables force their
 * policies on their owner too. Answers the role to switch to, undefined for none, or false when
 * the login bypasses and the role cannot be prepared (no CREATEROLE): the wall is then down.
 */
export async function prepareAppRole(client: pg.PoolClient): Promise<string | undefined | false> {
  const me = await client.query<{ rolsuper: boolean; rolbypassrls: boolean }>('select rolsuper, rolbypassrls from pg_roles where rolname = current_user');
  if (!me.rows[0]?.rolsuper && !me.rows[0]?.rolbypassrls) return undefined;
  try {
    // Roles belong to the whole server: instances and test databases may race to create it.
    await client.query(
      `do $$ begin create role ${APP_ROLE} nologin nosuperuser nobypassrls; exception when duplicate_object or unique_violation then null; end $$`,
    );
    await client.query(`grant ${APP_ROLE} to current_user`).catch(() => undefined);
    await client.query(`grant usage on schema public, drizzle to ${APP_ROLE}`);
    await client.query(`grant select, insert, update, delete on all tables in schema public to ${APP_ROLE}`);
    await client.query(`grant select on all tables in schema drizzle to ${APP_ROLE}`);
    await client.query(`grant usage, select on all sequences in schema public to ${APP_ROLE}`);
    return APP_ROLE;
  } catch {
    return false;
  }
}

/** What a connection is told about the code that checked it out: role, system flag and company. */
function scopeKey(role: string | undefined, scope: TenantScope): string {
  return `${role ?? ''}|${scope.system ? 'on' : 'off'}|${scope.companyId ?? ''}`;
}

/**
 * Only drizzle's transactions check out with `connect()` (the promise form), and drizzle 0.45
 * releases the connection only once its `begin` succeeded: a `begin` that fails (the server going
 * away) would leak the connection and shrink the pool for good (found by `npm run chaos`, which
 * stops PostgreSQL under load). The first query's failure releases it, as broken, here.
 */
function releaseIfFirstQueryFails(client: pg.PoolClient): pg.PoolClient {
  const query = client.query;
  const first = function (this: pg.PoolClient, ...args: unknown[]): unknown {
    client.query = query;
    const result = (query as (...a: unknown[]) => unknown).apply(client, args);
    if (result instanceof Promise) {
      result.catch((err: unknown) => client.release(err instanceof Error ? err : new Error(String(err))));
    }
    return result;
  };
  client.query = first as typeof client.query;
  return client;
}

type QueryCallback = (err: Error | null, result: unknown) => void;

/**
 * Every statement of a connection is timed and traced (src/kernel/telemetry.ts), whichever path sent it:
 * pg-pool's `query` (callback form) and drizzle's transactions (promise form) both end here. A
 * submittable (a cursor) is passed through untimed.
 */
function timeStatements(client: pg.PoolClient): void {
  const query = client.query as (...a: unknown[]) => unknown;
  client.query = function (this: pg.PoolClient, ...args: unknown[]): unknown {
    const last = args[args.length - 1];
    if (!statementsObserved() || (typeof args[0] === 'object' && args[0] !== null && 'submit' in args[0])) return query.apply(this, args);
    const sql = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | null)?.text;
    if (typeof last !== 'function') return timedStatement(() => query.apply(this, args) as Promise<unknown>, 'pg', sql);
    const callback = last as QueryCallback;
    return timedStatement(
      () =>
        new Promise<unknown>((resolve, reject) => {
          query.apply(this, [...args.slice(0, -1), (err: Error | null, result: unknown) => (err ? reject(err) : resolve(result))]);
        }),
      'pg',
      sql,
    ).then(
      (result) => callback(null, result),
      (err: Error) => callback(err, undefined),
    );
  } as typeof client.query;
}

/**
 * One statement at a time on each connection. Code in a transaction may start several statements
 * at once (`Promise.all` over one executor); pg queues them itself, but that queue is deprecated
 * and goes in pg 9 ("Calling client.query() when the client is already executing a query"). Each
 * promise-form statement now starts when the connection's previous one has settled, in the order
 * they were asked, failures included, as pg's queue did. A statement on an idle connection starts
 * at once. The callback form (pg-pool's one-statement checkouts) and submittables pass through.
 */
function oneStatementAtATime(client: pg.PoolClient): void {
  const query = client.query as (...a: unknown[]) => unknown;
  let last: Promise<unknown> | undefined;
  client.query = function (this: pg.PoolClient, ...args: unknown[]): unknown {
    if (typeof args[args.length - 1] === 'function' || (typeof args[0] === 'object' && args[0] !== null && 'submit' in args[0])) return query.apply(this, args);
    const run = () => query.apply(this, args) as Promise<unknown>;
    const result = last ? last.then(run, run) : run();
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    last = settled;
    void settled.then(() => {
      if (last === settled) last = undefined;
    });
    return result;
  } as typeof client.query;
}

/**
 * DATABASE_POOL_SIZE split in two lanes: about 30 % for Cradle's own work (key and session lookups,
 * group commits, workers), the rest for company-scoped queries; at least two connections each.
 */
export function laneSizes(poolSize: number): { system: number; company: number } {
  const system = Math.max(2, Math.round(poolSize * 0.3));
  return { system, company: Math.max(2, poolSize - system) };
}

/**
 * A pool whose every checkout tells the connection the tenant scope of the code that asked for it
 * (captured when `connect` is called, so a queued checkout cannot take another request's scope).
 * The settings are session-level and re-sent only when they differ from what the connection last
 * had. System work has its own lane of connections, which therefore never change scope; without
 * it, one API request (key lookup as system, its query for its company, its audit row as system)
 * re-told its connections twice (measured: 2.0 of 6.3 statements per request).
 */
export class ScopedPool extends pg.Pool {
  appRole: string | undefined;
  systemLane: ScopedPool | undefined;
  private readonly told = new WeakMap<pg.PoolClient, string>();

  constructor(config: pg.PoolConfig) {
    super(config);
    // 'connect' is emitted once per new connection, before anyone can use it.
    // Installed in this order, the serialising wrapper is the outer one: a statement is timed
    // from when it is sent, not from when it was queued.
    this.on('connect', (client: pg.PoolClient) => {
      timeStatements(client);
      oneStatementAtATime(client);
    });
  }

  connectAsLogin(): Promise<pg.PoolClient> {
    return super.connect().then(async (client) => {
      // A connection that served as the app role goes back to the login for DDL.
      if (this.told.has(client)) {
        this.told.delete(client);
        await client.query('reset role');
      }
      return client;
    });
  }

  // pg-pool's own `query` checks out through `connect(callback)`; drizzle's transactions through `connect()`.
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  override connect(
    callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): Promise<pg.PoolClient> | void {
    const scope = currentScope();
    if (scope.system && this.systemLane) {
      return callback ? this.systemLane.connect(callback) : this.systemLane.connect();
    }
    const asked = performance.now();
    const ready = super.connect().then(async (client) => {
      telemetrySink()?.poolWait(this.systemLane ? 'company' : 'system', (performance.now() - asked) / 1000);
      const key = scopeKey(this.appRole, scope);
      if (this.told.get(client) === key) return client;
      try {
        await client.query("select set_config('role', $1, false), set_config('cradle.system', $2, false), set_config('cradle.company_id', $3, false)", [
          this.appRole ?? 'none',
          scope.system ? 'on' : 'off',
          scope.companyId ?? '',
        ]);
      } catch (err) {
        client.release(err as Error);
        throw err;
      }
      this.told.set(client, key);
      return client;
    });
    if (!callback) return ready.then(releaseIfFirstQueryFails);
    ready.then(
      (client) => callback(undefined, client, (release) => client.release(release as Error | undefined)),
      (err: Error) => callback(err, undefined, () => undefined),
    );
  }
}
