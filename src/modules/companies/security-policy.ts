import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { recordAudit } from '../audit/record-audit.js';

/**
 * Whether every member must sign in with a second factor. When on, a member without one is sent
 * to set it up right after sign-in and reaches nothing else until then (the dashboard's sign-in
 * hook and `requireSession` enforce it; docs/access.md "Second factor").
 */
export async function setRequireSecondFactor(db: Db, ctx: Context, companyId: string, on: boolean): Promise<void> {
  await db.transaction(async (tx) => {
    const [before] = await tx.select({ on: companies.requireSecondFactor }).from(companies).where(eq(companies.id, companyId)).limit(1);
    if (before?.on === on) return;
    await tx.update(companies).set({ requireSecondFactor: on, updatedAt: new Date() }).where(eq(companies.id, companyId));
    await recordAudit(tx, ctx, {
      companyId,
      action: 'companies.security_policy',
      targetType: 'company',
      targetId: companyId,
      details: { requireSecondFactor: on },
    });
  });
}
