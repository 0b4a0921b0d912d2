import { and, desc, eq, lt } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { webhookDeliveries, webhooks } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode, notFound } from '../../kernel/errors.js';
import { recordAudit } from '../audit/record-audit.js';
import { enqueueEvent } from './enqueue-event.js';
import type { DeliveryView } from './webhooks.schemas.js';

async function assertWebhook(db: Executor, companyId: string, webhookId: string): Promise<void> {
  const [w] = await db.select({ id: webhooks.id }).from(webhooks).where(and(eq(webhooks.companyId, companyId), eq(webhooks.id, webhookId)));
  if (!w) throw notFound('webhook');
}

/** An endpoint's deliveries, newest first; `before` (an ISO time) pages back. */
export async function listDeliveries(db: Executor, companyId: string, webhookId: string, opts: { limit?: number; before?: Date } = {}): Promise<DeliveryView[]> {
  await assertWebhook(db, companyId, webhookId);
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.companyId, companyId), eq(webhookDeliveries.webhookId, webhookId), opts.before ? lt(webhookDeliveries.createdAt, opts.before) : undefined))
    .orderBy(desc(webhookDeliveries.createdAt))
    .limit(Math.min(Math.max(opts.limit ?? 50, 1), 200));
  return rows.map((r) => ({
    id: r.id,
    webhookId: r.webhookId,
    eventType: r.eventType,
    state: r.state as DeliveryView['state'],
    attempts: r.attempts,
    nextAttemptAt: r.state === 'pending' ? r.nextAttemptAt.toISOString() : null,
    lastStatus: r.lastStatus,
    lastError: r.lastError,
    lastLatencyMs: r.lastLatencyMs,
    createdAt: r.createdAt.toISOString(),
    finishedAt: r.finishedAt?.toISOString() ?? null,
  }));
}

/** Queues a `webhook.test` event for this endpoint only (the dashboard's "send test event"). */
export async function sendTestEvent(db: Db, ctx: Context, companyId: string, webhookId: string): Promise<{ eventId: string }> {
  return db.transaction(async (tx) => {
    await assertWebhook(tx, companyId, webhookId);
    const now = new Date();
    const eventId = await enqueueEvent(tx, companyId, 'webhook.test', { webhookId, message: 'A test event from Cradle.' }, now);
    await recordAudit(tx, ctx, { companyId, action: 'webhooks.test', targetType: 'webhook', targetId: webhookId, at: now });
    return { eventId };
  });
}

/** Sends a finished delivery again, now, with its original webhook-id (receivers may dedupe on it). */
export async function redeliver(db: Db, ctx: Context, companyId: string, deliveryId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx
      .select({ state: webhookDeliveries.state, enabled: webhooks.enabled })
      .from(webhookDeliveries)
      .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
      .where(and(eq(webhookDeliveries.companyId, companyId), eq(webhookDeliveries.id, deliveryId)));
    if (!row) throw notFound('delivery');
    if (!row.enabled) throw new AppError(ErrorCode.CONFLICT, 'the endpoint is disabled; enable it first');
    if (row.state === 'pending') throw new AppError(ErrorCode.CONFLICT, 'the delivery is still pending');
    const now = new Date();
    await tx
      .update(webhookDeliveries)
      .set({ state: 'pending', attempts: 0, nextAttemptAt: now, lockedUntil: null, finishedAt: null })
      .where(eq(webhookDeliveries.id, deliveryId));
    await recordAudit(tx, ctx, { companyId, action: 'webhooks.redeliver', targetType: 'webhook_delivery', targetId: deliveryId, at: now });
  });
}
