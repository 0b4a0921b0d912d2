import { setImmediate as nextTurn } from 'node:timers/promises';
import { promisify } from 'node:util';
import { gunzip as gunzipCb } from 'node:zlib';
import { sql } from 'drizzle-orm';

const gunzipAsync = promisify(gunzipCb);

// Pushed documents are compressed where they are read, on a worker (sboms.read.ts, findings.read.ts).
export const gunzip = (bytes: Buffer): Promise<Buffer> => gunzipAsync(bytes);

/** Rows per bulk statement: large enough to amortise round trips, small enough to bound a statement. */
export const CHUNK_ROWS = 2000;

/**
 * A bulk write's chunks of CHUNK_ROWS, one event-loop turn apart: on the embedded database each
 * statement runs on the event loop, and the statements of one transaction otherwise follow each
 * other without a turn between them, so a large push held every other request's I/O (a health
 * probe, another company's read) until it committed (issue 33).
 */
export async function* chunksOf<T>(list: readonly T[]): AsyncGenerator<{ start: number; chunk: T[] }> {
  for (let start = 0; start < list.length; start += CHUNK_ROWS) {
    if (start > 0) await nextTurn();
    yield { start, chunk: list.slice(start, start + CHUNK_ROWS) };
  }
}

/** A PostgreSQL array literal (`{"a","b"}`) for text[] values sent through a text[] parameter. */
export function pgTextArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (m) => `\\${m}`)}"`).join(',')}}`;
}

/** Binds a whole JS array as one parameter (drizzle would otherwise expand it into a list). */
export const param = (values: unknown[]) => sql.param(values);
