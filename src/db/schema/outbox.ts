import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';

/**
 * Transactional outbox: events are written in the transaction of the change that caused them, so
 * an event exists exactly when its change committed. A dispatcher (webhook delivery) fans each
 * pending event out to the company's webhooks and sets `dispatched_at`.
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    /** Event type, e.g. `vulnerability.reported`. */
    type: text('type').notNull(),
    /** The complete webhook payload `{type, timestamp, data}`, fixed at the time of the change. */
    payload: jsonb('payload').$type<{ type: string; timestamp: string; data: Record<string, unknown> }>().notNull(),
    createdAt: instant('created_at').notNull(),
    dispatchedAt: instant('dispatched_at'),
  },
  (t) => [
    index('outbox_events_pending_idx')
      .on(t.createdAt)
      .where(sql`${t.dispatchedAt} is null`),
    index('outbox_events_company_idx').on(t.companyId, t.createdAt),
  ],
);
