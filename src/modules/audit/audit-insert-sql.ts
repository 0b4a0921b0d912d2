import { type SQL, sql } from 'drizzle-orm';
import type { Context } from '../../kernel/context.js';
import type { AuditEntry } from './record-audit.js';

/**
 * The audit row as one SQL statement, for verbs that write their change and its audit row in a
 * single statement (data-modifying CTEs) instead of a multi-statement transaction. `onlyIf` is a
 * condition over sibling CTEs, e.g. "the milestone update returned a row". The parameters carry
 * explicit casts: in `insert ... select` PostgreSQL cannot infer them from the target columns.
 */
export function auditInsertSql(ctx: Context, e: AuditEntry, onlyIf: SQL = sql`true`): SQL {
  return sql`insert into audit_log (company_id, at, actor_type, actor_id, action, target_type, target_id, outcome, ip, user_agent, request_id, details)
select ${e.companyId}::uuid, ${(e.at ?? new Date()).toISOString()}::timestamptz, ${ctx.actor.type}::text,
  ${'id' in ctx.actor ? ctx.actor.id : null}::text, ${e.action}::text, ${e.targetType ?? null}::text, ${e.targetId ?? null}::text,
  ${e.outcome ?? 'success'}::text, ${ctx.ip ?? null}::text, ${ctx.userAgent ?? null}::text, ${ctx.requestId ?? null}::text,
  ${JSON.stringify(e.details ?? {})}::jsonb
where ${onlyIf}`;
}
