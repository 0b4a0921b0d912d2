import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import { isUuid } from '../../kernel/ids.js';

/**
 * The e-mail addresses of some users of one company, by id: how a report's history and messages
 * name the people who acted. Ids of another company, of deleted users, or that are not ids at all
 * are simply absent from the answer.
 */
export async function userEmails(db: Executor, companyId: string, ids: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter(isUuid))];
  if (wanted.length === 0) return new Map();
  const rows = await db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(and(eq(users.companyId, companyId), inArray(users.id, wanted)));
  return new Map(rows.map((u) => [u.id, u.email]));
}
