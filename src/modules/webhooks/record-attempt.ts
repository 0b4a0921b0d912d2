import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { webhookAttempts, webhookDeliveries, webhooks } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';
import { recordAudit } from '../audit/record-audit.js';
import type { ClaimedDelivery } from './claim-deliveries.js';
import { enqueueEvent } from './enqueue-event.js';
import type { AttemptResult } from './post-webhook.js';
import { nextRetryDelay } from './retry-schedule.js';

export type Outcome = 'succeeded' | 'retry' | 'dead' | 'gone';

const SYSTEM = { actor: { type: 'system' as const } };

/**
 * Stores one attempt and moves its delivery on: 2xx succeeded; 410 disables the endpoint (the
 * receiver says it is gone) and cancels its other pending deliveries; any other failure is retried
 * on the schedule until it runs out, then dead-lettered: audited, and announced to the company's
 * other endpoints (never for a dead-letter event itself, so failures cannot cascade).
 */
export async function recordAttempt(
  db: Db,
  d: ClaimedDelivery,
  r: AttemptResult,
  now: Date,
  opts: { retryScale?: number; random?: () => number } = {},
): Promise<Outcome> {
  return db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({
      id: newId(), deliveryId: d.id, companyId: d.companyId, attempt: d.attempt, at: now, status: r.status, ok: r.ok,
      latencyMs: r.latencyMs, error: r.error?.slice(0, 500) ?? null, response: r.responseSnippet ?? null,
    });
    const last = { lastStatus: r.status, lastError: r.error?.slice(0, 500) ?? null, lastLatencyMs: r.latencyMs, lockedUntil: null };
    if (r.ok) {
      await tx.update(webhookDeliveries).set({ ...last, state: 'succeeded', finishedAt: now }).where(eq(webhookDeliveries.id, d.id));
      return 'succeeded';
    }
    if (r.status === 410) {
      await tx.update(webhookDeliveries).set({ ...last, state: 'dead', finishedAt: now }).where(eq(webhookDeliveries.id, d.id));
      await tx.update(webhooks).set({ enabled: false, disabledReason: 'the endpoint answered 410 Gone', updatedAt: now }).where(eq(webhooks.id, d.webhookId));
      await tx
        .update(webhookDeliveries)
        .set({ state: 'cancelled', finishedAt: now, lockedUntil: null })
        .where(and(eq(webhookDeliveries.webhookId, d.webhookId), eq(webhookDeliveries.state, 'pending')));
      await recordAudit(tx, SYSTEM, { companyId: d.companyId, action: 'webhooks.disable', targetType: 'webhook', targetId: d.webhookId, details: { reason: '410 Gone' }, at: now });
      return 'gone';
    }
    const delay = nextRetryDelay(d.attempt, r.retryAfterSeconds, opts.random, opts.retryScale);
    if (delay !== null) {
      await tx.update(webhookDeliveries).set({ ...last, nextAttemptAt: new Date(now.getTime() + delay * 1000) }).where(eq(webhookDeliveries.id, d.id));
      return 'retry';
    }
    await tx.update(webhookDeliveries).set({ ...last, state: 'dead', finishedAt: now }).where(eq(webhookDeliveries.id, d.id));
    await recordAudit(tx, SYSTEM, {
      companyId: d.companyId, action: 'webhooks.delivery_dead_lettered', targetType: 'webhook_delivery', targetId: d.id,
      outcome: 'failure', details: { webhookId: d.webhookId, eventType: d.eventType, attempts: d.attempt, lastStatus: r.status }, at: now,
    });
    if (d.eventType !== 'webhook.delivery_dead_lettered') {
      const data = { webhookId: d.webhookId, deliveryId: d.id, eventType: d.eventType, attempts: d.attempt, lastStatus: r.status, lastError: r.error ?? null };
      await enqueueEvent(tx, d.companyId, 'webhook.delivery_dead_lettered', data, now);
    }
    return 'dead';
  });
}
