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

/**
 * `lockFor` of many ids in one statement (a feed re-match locks a hundred products at once), taken
 * in one order (the ids sorted byte-wise) so two holders of overlapping sets cannot deadlock.
 */
export async function lockAllFor(tx: Executor, namespace: string, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const names = [...new Set(ids)].map((id) => `${namespace}:${id}`);
  await tx.execute(sql`
    select pg_advisory_xact_lock(hashtextextended(s.name, 0))
    from (select t.name from unnest(${sql.param(names)}::text[]) as t(name) order by t.name collate "C") s`);
}
