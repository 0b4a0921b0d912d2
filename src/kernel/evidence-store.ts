import { promisify } from 'node:util';
import { gunzip as gunzipCb } from 'node:zlib';
import { sql } from 'drizzle-orm';

const gunzipAsync = promisify(gunzipCb);

// Pushed documents are compressed where they are read, on a worker (sboms.read.ts, findings.read.ts).
export const gunzip = (bytes: Buffer): Promise<Buffer> => gunzipAsync(bytes);

/** Rows per bulk statement: large enough to amortise round trips, small enough to bound a statement. */
export const CHUNK_ROWS = 2000;

/** A PostgreSQL array literal (`{"a","b"}`) for text[] values sent through a text[] parameter. */
export function pgTextArray(values: string[]): string {
  return `{${values.map((v) => `"${v.replace(/[\\"]/g, (m) => `\\${m}`)}"`).join(',')}}`;
}

/** Binds a whole JS array as one parameter (drizzle would otherwise expand it into a list). */
export const param = (values: unknown[]) => sql.param(values);
