import { sql } from 'drizzle-orm';
import type { Executor } from './client.js';

/**
 * Serialises the holders of one name (`{namespace}:{id}`) until their transaction ends: pushes for
 * one product, sign-in attempts on one account. A transaction-scoped advisory lock: nothing to
 * release, nothing left behind by a crash, the same statement on PGlite and PostgreSQL, and it
 * holds across instances on PostgreSQL.
 */
export async function lockFor(tx: Executor, namespace: string, id: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${namespace}:${id}`}, 0))`);
}
