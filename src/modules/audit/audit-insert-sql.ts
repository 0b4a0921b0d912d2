import { type SQL, sql } from 'drizzle-orm';
import { auditLog } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Context } from '../../kernel/context.js';
import type { AuditEntry } from './record-audit.js';

/**
 * The columns every hand-written audit insert fills, in this order (the group commit's rows are
 * arrays in it): all but the generated id, checked against the table by test/db/sql-columns.test.ts.
 */
export const AUDIT_COLUMN_KEYS = [
  'companyId',
  'at',
  'actorType',
  'actorId',
  'action',
  'targetType',
  'targetId',
  'outcome',
  'ip',
  'userAgent',
  'requestId',
  'details',
] as const;
export const AUDIT_COLUMNS = sqlColumns(auditLog, AUDIT_COLUMN_KEYS);

/**
 * The audit row as one SQL statement, for verbs that write their change and its audit row in a
 * single statement (data-modifying CTEs) instead of a multi-statement transaction. `onlyIf` is a
 * condition over sibling CTEs, e.g. "the milestone update returned a row". The parameters carry
 * explicit casts: in `insert ... select` PostgreSQL cannot infer them from the target columns.
 */
export function auditInsertSql(ctx: Context, e: AuditEntry, onlyIf: SQL = sql`true`): SQL {
  return sql`insert into audit_log (${AUDIT_COLUMNS})
select ${e.companyId}::uuid, ${(e.at ?? new Date()).toISOString()}::timestamptz, ${ctx.actor.type}::text,
  ${'id' in ctx.actor ? ctx.actor.id : null}::text, ${e.action}::text, ${e.targetType ?? null}::text, ${e.targetId ?? null}::text,
  ${e.outcome ?? 'success'}::text, ${ctx.ip ?? null}::text, ${ctx.userAgent ?? null}::text, ${ctx.requestId ?? null}::text,
  ${JSON.stringify(e.details ?? {})}::jsonb
where ${onlyIf}`;
}
