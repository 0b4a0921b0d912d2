// PostgreSQL's LISTEN connection, loaded with the PostgreSQL driver only when DATABASE_URL is set
// (src/db/postgres-client.ts, ADR 0027).
import pg from 'pg';
import type { Listen } from './notifications.js';

const CHANNEL = /^[a-z_]+$/;
const RECONNECT_MS = 1_000;

/**
 * PostgreSQL: one dedicated connection per instance that LISTENs (a pooled connection would drop its
 * subscriptions when handed back). A lost connection is made again every second; once back, every
 * subscriber is called once, since what was notified in between is lost (a worker woken needlessly
 * makes one empty pass; the workers' polls cover the gap too).
 */
export function postgresListener(connectionString: string): { listen: Listen; close(): Promise<void> } {
  const handlers = new Map<string, Set<(payload: string) => void>>();
  // The connection being made or in use; `client` once it listens.
  let current: pg.Client | undefined;
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  const lost = (c: pg.Client): void => {
    if (c !== current) return;
    current = undefined;
    client = undefined;
    connecting = undefined;
    c.removeAllListeners('notification');
    void c.end().catch(() => undefined);
    schedule();
  };
  const schedule = (): void => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(
        () => {
          for (const set of handlers.values()) for (const fn of set) fn('');
        },
        () => schedule(),
      );
    }, RECONNECT_MS);
    retry.unref();
  };
  const connect = (): Promise<pg.Client> => {
    connecting ??= (async () => {
      const c = new pg.Client({ connectionString });
      current = c;
      c.on('error', () => lost(c));
      c.on('end', () => lost(c));
      c.on('notification', (m) => {
        for (const fn of handlers.get(m.channel) ?? []) fn(m.payload ?? '');
      });
      await c.connect();
      for (const channel of handlers.keys()) await c.query(`listen ${channel}`);
      if (closed) {
        await c.end();
        throw new Error('listener closed');
      }
      client = c;
      return c;
    })();
    connecting.catch(() => (connecting = undefined));
    return connecting;
  };

  return {
    async listen(channel, fn) {
      if (!CHANNEL.test(channel)) throw new Error(`not a channel name: ${channel}`);
      const set = handlers.get(channel) ?? new Set();
      const fresh = set.size === 0;
      set.add(fn);
      handlers.set(channel, set);
      if (fresh) {
        // A listener that cannot connect yet keeps the subscription and tries again.
        await connect()
          .then((c) => c.query(`listen ${channel}`))
          .catch(() => schedule());
      }
      return async () => {
        set.delete(fn);
        if (set.size > 0 || handlers.get(channel) !== set) return;
        handlers.delete(channel);
        await client?.query(`unlisten ${channel}`).catch(() => undefined);
      };
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = current;
      current = client = undefined;
      await c?.end().catch(() => undefined);
    },
  };
}
