import type { SQL } from 'drizzle-orm';
import type { Executor } from './client.js';

/**
 * Runs a raw statement and answers its rows. Both drivers (PGlite, node-postgres) answer
 * `{ rows }`; drizzle types the result as the driver-neutral `unknown`, so the cast lives here once.
 */
export async function selectRows<T>(db: Executor, statement: SQL): Promise<T[]> {
  const result = await db.execute(statement);
  return (result as unknown as { rows: T[] }).rows;
}
