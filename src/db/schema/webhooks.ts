import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { outboxEvents } from './outbox.js';

/**
 * Webhook endpoints. The signing secret must stay usable (HMAC needs it), so it is stored sealed
 * under the operator key (`src/kernel/secret-box.ts`, bound to `webhook:<id>`; ADR 0016), never
 * returned after creation and never logged. During a rotation the previous secret also signs until
 * `previous_secret_expires_at`. Values stored before sealing existed carry `plain:` (migration) until
 * the start-up step seals them; the checks keep anything else out.
 */
export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    url: text('url').notNull(),
    /** Only this event type; null receives every event. */
    event: text('event'),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: instant('previous_secret_expires_at'),
    enabled: boolean('enabled').notNull().default(true),
    disabledReason: text('disabled_reason'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    index('webhooks_company_idx').on(t.companyId),
    check('webhooks_secret_sealed_check', sql`${t.secret} like 'sb1.%' or ${t.secret} like 'plain:%'`),
    check('webhooks_previous_secret_sealed_check', sql`${t.previousSecret} is null or ${t.previousSecret} like 'sb1.%' or ${t.previousSecret} like 'plain:%'`),
  ],
);

/** One event to one endpoint; its id is the Standard Webhooks `webhook-id`, stable across retries. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    webhookId: uuid('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    eventId: uuid('event_id')
      .notNull()
      .references(() => outboxEvents.id, { onDelete: 'cascade' }),
    eventType: text('event_type').notNull(),
    /** pending, succeeded, dead (retries exhausted or endpoint gone), cancelled (endpoint disabled). */
    state: text('state').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: instant('next_attempt_at').notNull(),
    /** A worker's claim on an attempt in flight; a crashed worker's claim simply expires. */
    lockedUntil: instant('locked_until'),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    lastLatencyMs: integer('last_latency_ms'),
    createdAt: instant('created_at').notNull(),
    finishedAt: instant('finished_at'),
  },
  (t) => [
    index('webhook_deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.state} = 'pending'`),
    // The claim's per-endpoint probe and its in-flight count.
    index('webhook_deliveries_endpoint_due_idx')
      .on(t.webhookId, t.nextAttemptAt)
      .where(sql`${t.state} = 'pending'`),
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.createdAt),
  ],
);

/** Every attempt of a delivery, for the delivery log (status, latency, error, a capped response). */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: uuid('id').primaryKey(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    companyId: uuid('company_id').notNull(),
    attempt: integer('attempt').notNull(),
    at: instant('at').notNull(),
    status: integer('status'),
    ok: boolean('ok').notNull(),
    latencyMs: integer('latency_ms').notNull(),
    error: text('error'),
    response: text('response'),
    details: jsonb('details').$type<Record<string, unknown>>(),
  },
  (t) => [index('webhook_attempts_delivery_idx').on(t.deliveryId, t.attempt)],
);
