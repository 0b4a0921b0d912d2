import type { Executor } from '../../db/client.js';
import type { Context } from '../../kernel/context.js';
import { auditInsertSql } from './audit-insert-sql.js';

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
  await db.execute(auditInsertSql(ctx, e));
}
