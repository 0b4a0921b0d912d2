import { bigserial, index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';

/**
 * The company's audit log. Written in the same transaction as the change it records (fail-closed).
 * `details` must never hold a secret: callers pass only non-secret facts.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    companyId: companyIdColumn(),
    at: instant('at').notNull(),
    actorType: text('actor_type', { enum: ['operator', 'user', 'api_key', 'public', 'system'] }).notNull(),
    actorId: text('actor_id'),
    action: text('action').notNull(),
    targetType: text('target_type'),
    targetId: text('target_id'),
    outcome: text('outcome').notNull().default('success'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    requestId: text('request_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
  },
  (t) => [index('audit_log_company_at_idx').on(t.companyId, t.at), index('audit_log_company_actor_idx').on(t.companyId, t.actorId, t.at)],
);
