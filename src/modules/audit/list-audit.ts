import { and, desc, eq, gte, like, lt, type SQL } from 'drizzle-orm';
import { z } from 'zod';
import type { Executor } from '../../db/client.js';
import { auditLog } from '../../db/schema/index.js';

/** Who may act (the audit row's `actor_type`) and how it ended: the filter's choices and the page's labels. */
export const AUDIT_ACTOR_TYPES = ['operator', 'user', 'api_key', 'public', 'system'] as const;
export const AUDIT_OUTCOMES = ['success', 'denied', 'failure'] as const;

const Day = z.iso.date();

/** Filters of the audit viewer; every field optional, unknown values are a validation error. */
export const AuditFilter = z.object({
  action: z
    .string()
    .trim()
    .max(64)
    .regex(/^[a-z0-9_.]*$/, 'letters, digits, dots and underscores')
    .optional(),
  actorType: z.enum(AUDIT_ACTOR_TYPES).optional(),
  actorId: z.string().trim().max(64).optional(),
  outcome: z.enum(AUDIT_OUTCOMES).optional(),
  from: Day.optional(),
  to: Day.optional(),
  before: z.coerce.number().int().positive().optional(),
});
export type AuditFilter = z.infer<typeof AuditFilter>;

export type AuditEntryView = {
  id: number;
  at: Date;
  actorType: string;
  actorId: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  outcome: string;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  details: Record<string, unknown>;
};

export const AUDIT_PAGE_SIZE = 50;

/**
 * One page of the company's audit log, newest first; `nextBefore` continues it. Always scoped to
 * `companyId`: the filter cannot name another company. An action ending in `.` matches a prefix.
 */
export async function listAudit(db: Executor, companyId: string, f: AuditFilter): Promise<{ entries: AuditEntryView[]; nextBefore?: number }> {
  const where: SQL[] = [eq(auditLog.companyId, companyId)];
  if (f.action) where.push(f.action.endsWith('.') ? like(auditLog.action, `${f.action}%`) : eq(auditLog.action, f.action));
  if (f.actorType) where.push(eq(auditLog.actorType, f.actorType));
  if (f.actorId) where.push(eq(auditLog.actorId, f.actorId));
  if (f.outcome) where.push(eq(auditLog.outcome, f.outcome));
  if (f.from) where.push(gte(auditLog.at, new Date(`${f.from}T00:00:00Z`)));
  if (f.to) where.push(lt(auditLog.at, new Date(new Date(`${f.to}T00:00:00Z`).getTime() + 86_400_000)));
  if (f.before) where.push(lt(auditLog.id, f.before));
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.id))
    .limit(AUDIT_PAGE_SIZE + 1);
  const entries = rows.slice(0, AUDIT_PAGE_SIZE).map(({ companyId: _c, ...r }) => r);
  const last = entries.at(-1);
  return rows.length > AUDIT_PAGE_SIZE && last ? { entries, nextBefore: last.id } : { entries };
}
