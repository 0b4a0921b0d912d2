// drizzle's PGlite session hands PGlite the same few result parsers with every query: the date and
// time types (and their arrays, and numeric[]) as the text PostgreSQL sent. PGlite merges
// per-query parsers into its own table by spreading the whole table (319 entries, keyed by type
// OID) on every call: measured 120 µs of CPU per query, as much again as the query itself
// (`select 1`: 150 µs without the option, 290 µs with it). The embedded database instead holds
// those parsers in its own table, and the client drizzle talks to leaves the per-query copy out when
// it is the same: each query is then parsed by the same parsers, without the copy.
import type { PGlite, QueryOptions, Transaction } from '@electric-sql/pglite';
import { timedStatement } from '../kernel/telemetry.js';

/** The type OIDs drizzle's PGlite session returns as PostgreSQL's text (drizzle-orm 0.45 pglite/session.js). */
export const TEXT_RESULT_OIDS = [
  1114, // timestamp
  1184, // timestamptz
  1186, // interval
  1082, // date
  1231, // numeric[]
  1115, // timestamp[]
  1185, // timestamptz[]
  1187, // interval[]
  1182, // date[]
] as const;

const asSent = (value: string): string => value;

const OIDS = new Set<string>(TEXT_RESULT_OIDS.map(String));
const PROBE = '\u0000cradle-parser-probe';

type Parsers = NonNullable<QueryOptions['parsers']>;

/**
 * True when every per-query parser is for one of TEXT_RESULT_OIDS, returns its input unchanged,
 * and the instance's table holds `asSent` for that type: leaving it out then changes nothing.
 */
function sameAsInstance(parsers: Parsers, held: Parsers): boolean {
  for (const oid in parsers) {
    const parse = parsers[oid as unknown as number];
    if (!OIDS.has(oid) || !parse || parse(PROBE) !== PROBE || held[oid as unknown as number] !== asSent) return false;
  }
  return true;
}

function leanOptions(options: QueryOptions | undefined, held: Parsers): QueryOptions | undefined {
  if (!options?.parsers || !sameAsInstance(options.parsers, held)) return options;
  const { parsers: _same, ...rest } = options;
  return rest;
}

type Queryable = Pick<PGlite, 'query'>;

/** `target` (the instance or one of its transactions) with a `query` that checks against the instance's table as it is now. */
function withLeanQuery<T extends Queryable>(target: T, client: PGlite, extra?: Partial<Record<PropertyKey, unknown>>): T {
  return new Proxy(target, {
    get(t, prop) {
      if (prop === 'query')
        return (q: string, params?: unknown[], options?: QueryOptions) => timedStatement(() => t.query(q, params, leanOptions(options, client.parsers)));
      if (extra && prop in extra) return extra[prop];
      const value: unknown = Reflect.get(t, prop);
      // PGlite's methods check their receiver's private fields: they run on the instance itself.
      return typeof value === 'function' && prop !== 'constructor' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

/**
 * The PGlite client drizzle is given. The instance's parser table takes drizzle's text parsers for
 * TEXT_RESULT_OIDS (after PGlite has filled in its array types, which it does once, on start: an
 * array of dates is then PostgreSQL's text, as drizzle asks, not an array), and queries, inside
 * transactions too, leave out per-query parsers the table holds. Should the table change again, the
 * per-query parsers travel as before.
 */
export function leanParserClient(client: PGlite): PGlite {
  for (const oid of TEXT_RESULT_OIDS) client.parsers[oid] = asSent;
  const transaction = <T>(fn: (tx: Transaction) => Promise<T>): Promise<T> => client.transaction((tx) => fn(withLeanQuery(tx, client)));
  return withLeanQuery(client, client, { transaction });
}
