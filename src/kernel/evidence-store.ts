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
export async function* chunksOf<T>(list: readonly T[], rows = CHUNK_ROWS): AsyncGenerator<{ start: number; chunk: T[] }> {
  for (let start = 0; start < list.length; start += rows) {
    if (start > 0) await nextTurn();
    yield { start, chunk: list.slice(start, start + rows) };
  }
}

/**
 * Rows per read of a large ordered set (an SBOM's components): on the embedded database one
 * statement holds the one session while it runs and its whole answer is built inside the
 * WebAssembly heap, which never shrinks; pages bound both (issue 33).
 */
export const READ_PAGE_ROWS = 5000;

/** Reads `page(offset, limit)` until a short page: ordinal ranges of READ_PAGE_ROWS, each a statement of its own. */
export async function readPaged<T>(page: (from: number, to: number) => Promise<T[]>): Promise<T[]> {
  const all: T[] = [];
  for (let from = 0; ; from += READ_PAGE_ROWS) {
    const rows = await page(from, from + READ_PAGE_ROWS);
    for (const r of rows) all.push(r);
    if (rows.length < READ_PAGE_ROWS) return all;
  }
}

/** A PostgreSQL array literal (`{"a","b"}`) for text[] values sent through a text[] parameter. */
export function pgTextArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (m) => `\\${m}`)}"`).join(',')}}`;
}

/** Binds a whole JS array as one parameter (drizzle would otherwise expand it into a list). */
export const param = (values: unknown[]) => sql.param(values);
