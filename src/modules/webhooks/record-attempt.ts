import { and, eq, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { webhookAttempts, webhookDeliveries, webhooks } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';
import { recordAudit } from '../audit/record-audit.js';
import type { ClaimedDelivery } from './claim-deliveries.js';
import { enqueueEvent } from './enqueue-event.js';
import type { AttemptResult } from './post-webhook.js';
import { nextRetryDelay } from './retry-schedule.js';

export type Outcome = 'succeeded' | 'retry' | 'dead' | 'gone';

const SYSTEM = { actor: { type: 'system' as const } };

export type RecordOptions = { retryScale?: number; random?: () => number };
export type Finished = { d: ClaimedDelivery; r: AttemptResult; at: Date };

/**
 * Stores a batch of finished attempts in one transaction (the worker group-commits them): every
 * attempt row in one INSERT, every success in one UPDATE, and each failure on its own path below.
 */
export async function recordAttempts(db: Db, batch: readonly Finished[], opts: RecordOptions = {}): Promise<Outcome[]> {
  if (batch.length === 0) return [];
  return db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values(
      batch.map(({ d, r, at }) => ({
        id: newId(),
        deliveryId: d.id,
        companyId: d.companyId,
        attempt: d.attempt,
        at,
        status: r.status,
        ok: r.ok,
        latencyMs: r.latencyMs,
        error: r.error?.slice(0, 500) ?? null,
        response: r.responseSnippet ?? null,
      })),
    );
    const succeeded = batch.filter(({ r }) => r.ok);
    if (succeeded.length > 0) {
      const rows = sql.join(
        succeeded.map(({ d, r, at }) => sql`(${d.id}::uuid, ${r.status}::int, ${r.latencyMs}::int, ${at.toISOString()}::timestamptz)`),
        sql`, `,
      );
      await tx.execute(sql`
        update webhook_deliveries u
           set state = 'succeeded', finished_at = v.at, last_status = v.status, last_error = null,
               last_latency_ms = v.latency, locked_until = null
          from (values ${rows}) as v(id, status, latency, at)
         where u.id = v.id`);
    }
    const outcomes: Outcome[] = [];
    for (const { d, r, at } of batch) outcomes.push(r.ok ? 'succeeded' : await recordFailure(tx, d, r, at, opts));
    return outcomes;
  });
}

/** One attempt (tests, tools): the same path as a batch of one. */
export async function recordAttempt(db: Db, d: ClaimedDelivery, r: AttemptResult, now: Date, opts: RecordOptions = {}): Promise<Outcome> {
  const [outcome] = await recordAttempts(db, [{ d, r, at: now }], opts);
  return outcome as Outcome;
}

/**
 * Moves a failed attempt's delivery on (2xx is handled in bulk above): 410 disables the endpoint (the
 * receiver says it is gone) and cancels its other pending deliveries; any other failure is retried
 * on the schedule until it runs out, then dead-lettered: audited, and announced to the company's
 * other endpoints (never for a dead-letter event itself, so failures cannot cascade).
 */
async function recordFailure(tx: Executor, d: ClaimedDelivery, r: AttemptResult, now: Date, opts: RecordOptions): Promise<Outcome> {
  const last = { lastStatus: r.status, lastError: r.error?.slice(0, 500) ?? null, lastLatencyMs: r.latencyMs, lockedUntil: null };
  if (r.status === 410) {
    await tx
      .update(webhookDeliveries)
      .set({ ...last, state: 'dead', finishedAt: now })
      .where(eq(webhookDeliveries.id, d.id));
    await tx.update(webhooks).set({ enabled: false, disabledReason: 'the endpoint answered 410 Gone', updatedAt: now }).where(eq(webhooks.id, d.webhookId));
    await tx
      .update(webhookDeliveries)
      .set({ state: 'cancelled', finishedAt: now, lockedUntil: null })
      .where(and(eq(webhookDeliveries.webhookId, d.webhookId), eq(webhookDeliveries.state, 'pending')));
    await recordAudit(tx, SYSTEM, {
      companyId: d.companyId,
      action: 'webhooks.disable',
      targetType: 'webhook',
      targetId: d.webhookId,
      details: { reason: '410 Gone' },
      at: now,
    });
    return 'gone';
  }
  const delay = nextRetryDelay(d.attempt, r.retryAfterSeconds, opts.random, opts.retryScale);
  if (delay !== null) {
    await tx
      .update(webhookDeliveries)
      .set({ ...last, nextAttemptAt: new Date(now.getTime() + delay * 1000) })
      .where(eq(webhookDeliveries.id, d.id));
    return 'retry';
  }
  await tx
    .update(webhookDeliveries)
    .set({ ...last, state: 'dead', finishedAt: now })
    .where(eq(webhookDeliveries.id, d.id));
  await recordAudit(tx, SYSTEM, {
    companyId: d.companyId,
    action: 'webhooks.delivery_dead_lettered',
    targetType: 'webhook_delivery',
    targetId: d.id,
    outcome: 'failure',
    details: { webhookId: d.webhookId, eventType: d.eventType, attempts: d.attempt, lastStatus: r.status },
    at: now,
  });
  if (d.eventType !== 'webhook.delivery_dead_lettered') {
    const data = { webhookId: d.webhookId, deliveryId: d.id, eventType: d.eventType, attempts: d.attempt, lastStatus: r.status, lastError: r.error ?? null };
    await enqueueEvent(tx, d.companyId, 'webhook.delivery_dead_lettered', data, now);
  }
  return 'dead';
}
