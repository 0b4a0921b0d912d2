// drizzle's PGlite session hands PGlite the same few result parsers with every query: the date and
// time types (and their arrays, and numeric[]) as the text PostgreSQL sent. PGlite merges
// per-query parsers into its own table by spreading the whole table (319 entries, keyed by type
// OID) on every call: measured 120 µs of CPU per query, as much again as the query itself. And
// since the embedded database runs in a worker thread (ADR 0018), functions could not cross to it
// anyway. So the worker's instance holds those parsers in its own table, and the main thread leaves
// drizzle's per-query copy out when it is the same; any other per-query parser runs on the main
// thread, on the text the worker leaves unparsed for its type.
import type { PGlite, QueryOptions, Results } from '@electric-sql/pglite';

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

const HELD = new Set<number>(TEXT_RESULT_OIDS);
const PROBE = '\u0000cradle-parser-probe';

type Parse = (value: string, typeId?: number) => unknown;
type Parsers = NonNullable<QueryOptions['parsers']>;

/**
 * Worker side: the instance's table returns TEXT_RESULT_OIDS as text (set after PGlite has filled
 * in its array types, which it does once, on start: an array of dates is then PostgreSQL's text,
 * as drizzle asks, not an array).
 */
export function holdTextParsers(client: PGlite): void {
  for (const oid of TEXT_RESULT_OIDS) client.parsers[oid] = asSent;
}

/**
 * Worker side: the per-query options that leave `textOids` as text. Types the table holds as text
 * need nothing (no copy of the table); others get PGlite's per-query parsers, built in the worker.
 */
export function textParsersFor(textOids: number[] | undefined): Parsers | undefined {
  const extra = (textOids ?? []).filter((oid) => !HELD.has(oid));
  return extra.length === 0 ? undefined : Object.fromEntries(extra.map((oid) => [oid, asSent]));
}

/**
 * Main side: the per-query parsers the worker's table does not already apply: those for other
 * types, or doing something other than returning the text. Undefined when there are none (drizzle's
 * own parsers, on every query).
 */
export function parsersToApply(parsers: Parsers | undefined): Map<number, Parse> | undefined {
  let local: Map<number, Parse> | undefined;
  for (const key in parsers) {
    const oid = Number(key);
    const parse = parsers[oid];
    if (!parse || (HELD.has(oid) && parse(PROBE) === PROBE)) continue;
    (local ??= new Map()).set(oid, parse);
  }
  return local;
}

/** Main side: runs `parsers` on the text the worker left for their types, in place. */
export function applyParsers<T>(result: Results<T>, parsers: Map<number, Parse>): Results<T> {
  result.fields.forEach((field, i) => {
    const parse = parsers.get(field.dataTypeID);
    if (!parse) return;
    for (const row of result.rows as Record<string | number, unknown>[]) {
      const key = Array.isArray(row) ? i : field.name;
      const value = row[key];
      if (typeof value === 'string') row[key] = parse(value, field.dataTypeID);
    }
  });
  return result;
}

const BYTEA_OID = 17;

/**
 * Worker side: bytea to and from PostgreSQL's hex text with Node's native hex codec. PGlite's own
 * makes a string per byte (serialise) or a parseInt per byte (parse) in JavaScript, on the thread
 * that holds the one session: a 176 KB gzip'd SARIF log took 250-550 ms to send at load 20, and
 * every other company's statement waited for it (ADR 0025).
 */
export function nativeBytea(client: PGlite): void {
  client.serializers[BYTEA_OID] = (v: unknown): string => {
    if (!(v instanceof Uint8Array)) throw new Error('Invalid input for bytea type');
    return `\\x${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  };
  client.parsers[BYTEA_OID] = (text: string): Uint8Array => Buffer.from(text.slice(2), 'hex');
}
