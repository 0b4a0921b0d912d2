import type { Executor } from '../../db/client.js';
import { auditLog } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';

export type AuditEntry = {
  companyId: string;
  action: string;
  targetType?: string;
  targetId?: string;
  outcome?: 'success' | 'denied' | 'failure';
  /** Non-secret facts only. Never a password, key value, token or webhook secret. */
  details?: Record<string, unknown>;
  at?: Date;
};

/** Writes one audit row with the caller's executor, so it commits or rolls back with the change. */
export async function recordAudit(db: Executor, ctx: Context, e: AuditEntry): Promise<void> {
  await db.insert(auditLog).values({
    companyId: e.companyId,
    at: e.at ?? new Date(),
    actorType: ctx.actor.type,
    actorId: 'id' in ctx.actor ? ctx.actor.id : null,
    action: e.action,
    targetType: e.targetType ?? null,
    targetId: e.targetId ?? null,
    outcome: e.outcome ?? 'success',
    ip: ctx.ip ?? null,
    userAgent: ctx.userAgent ?? null,
    requestId: ctx.requestId ?? null,
    details: e.details ?? {},
  });
}
