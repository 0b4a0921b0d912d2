import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { companies } from './companies.js';

/**
 * Transactional outbox: events are written in the transaction of the change that caused them, so
 * an event exists exactly when its change committed. A dispatcher (webhook delivery) fans each
 * pending event out to the company's webhooks and sets `dispatched_at`.
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    id: uuid('id').primaryKey(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    /** Event type, e.g. `vulnerability.reported`. */
    type: text('type').notNull(),
    /** The complete webhook payload `{type, timestamp, data}`, fixed at the time of the change. */
    payload: jsonb('payload').$type<{ type: string; timestamp: string; data: Record<string, unknown> }>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull(),
    dispatchedAt: timestamp('dispatched_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    index('outbox_events_pending_idx').on(t.createdAt).where(sql`${t.dispatchedAt} is null`),
    index('outbox_events_company_idx').on(t.companyId, t.createdAt),
  ],
);
