import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { webhookDeliveries, webhooks } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode, notFound } from '../../kernel/errors.js';
import { recordAudit } from '../audit/record-audit.js';
import { isUuid } from '../../kernel/ids.js';
import { enqueueEvent } from './enqueue-event.js';
import type { DeliveryView } from './webhooks.schemas.js';

async function assertWebhook(db: Executor, companyId: string, webhookId: string): Promise<void> {
  if (!isUuid(webhookId)) throw notFound('webhook');
  const [w] = await db
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(and(eq(webhooks.companyId, companyId), eq(webhooks.id, webhookId)));
  if (!w) throw notFound('webhook');
}

/** An endpoint's deliveries, newest first; `before` (an ISO time) pages back. */
export async function listDeliveries(
  db: Executor,
  companyId: string,
  webhookId: string,
  opts: { limit?: number; before?: Date } = {},
): Promise<DeliveryView[]> {
  await assertWebhook(db, companyId, webhookId);
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.companyId, companyId),
        eq(webhookDeliveries.webhookId, webhookId),
        opts.before ? lt(webhookDeliveries.createdAt, opts.before) : undefined,
      ),
    )
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
  if (!isUuid(deliveryId)) throw notFound('delivery');
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

export type EndpointHealth = { webhookId: string; pending: number; succeeded: number; dead: number; lastAttemptAt: string | null; lastStatus: number | null };

/**
 * Per endpoint of the company, its deliveries by state over the last `days` and its latest attempt:
 * the dashboard's list, where dead-lettered deliveries are what the company must be told about.
 */
export async function endpointHealth(db: Executor, companyId: string, days = 7): Promise<Map<string, EndpointHealth>> {
  const since = new Date(Date.now() - days * 86_400_000).toISOString();
  const result = await db.execute<{
    webhook_id: string;
    pending: number;
    succeeded: number;
    dead: number;
    last_at: string | null;
    last_status: number | null;
  }>(sql`
    select d.webhook_id,
           count(*) filter (where d.state = 'pending')::int as pending,
           count(*) filter (where d.state = 'succeeded')::int as succeeded,
           count(*) filter (where d.state = 'dead')::int as dead,
           (array_agg(d.finished_at order by d.finished_at desc nulls last))[1] as last_at,
           (array_agg(d.last_status order by d.finished_at desc nulls last))[1] as last_status
    from webhook_deliveries d
    where d.company_id = ${companyId} and d.created_at >= ${since}::timestamptz
    group by d.webhook_id`);
  const rows = (
    result as unknown as {
      rows: { webhook_id: string; pending: number; succeeded: number; dead: number; last_at: string | Date | null; last_status: number | null }[];
    }
  ).rows;
  return new Map(
    rows.map((r) => [
      r.webhook_id,
      {
        webhookId: r.webhook_id,
        pending: Number(r.pending),
        succeeded: Number(r.succeeded),
        dead: Number(r.dead),
        lastAttemptAt: r.last_at ? new Date(r.last_at).toISOString() : null,
        lastStatus: r.last_status === null ? null : Number(r.last_status),
      },
    ]),
  );
}
