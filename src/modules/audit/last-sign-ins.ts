import { and, eq, inArray, max } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { auditLog } from '../../db/schema/index.js';

/** Each member's latest successful dashboard sign-in, from the company's audit log. */
export async function lastSignIns(db: Db, companyId: string, userIds: readonly string[]): Promise<Map<string, Date>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .select({ userId: auditLog.targetId, at: max(auditLog.at) })
    .from(auditLog)
    .where(
      and(eq(auditLog.companyId, companyId), eq(auditLog.action, 'session.sign_in'), eq(auditLog.outcome, 'success'), inArray(auditLog.targetId, [...userIds])),
    )
    .groupBy(auditLog.targetId);
  return new Map(rows.flatMap((r) => (r.userId && r.at ? [[r.userId, r.at] as const] : [])));
}
