import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { outboxEvents, webhookDeliveries, webhooks } from '../../db/schema/index.js';
import { eq } from 'drizzle-orm';

export type ClaimedDelivery = {
  id: string;
  companyId: string;
  webhookId: string;
  eventType: string;
  attempt: number;
  url: string;
  enabled: boolean;
  secrets: string[];
  body: string;
};

/**
 * Claims due deliveries for one attempt each: sets a lease (`locked_until`) and counts the attempt.
 * A worker that dies mid-attempt simply lets its lease expire and another takes the delivery over
 * (at-least-once). At most `perEndpoint` deliveries of one endpoint are claimed, and none of an
 * endpoint that still has attempts in flight, so a slow or dead endpoint holds at most that many
 * worker slots and never delays other companies' deliveries.
 */
export async function claimDueDeliveries(db: Db, now: Date, opts: { batch: number; perEndpoint: number; leaseMs: number }): Promise<ClaimedDelivery[]> {
  const leaseUntil = new Date(now.getTime() + opts.leaseMs);
  const nowIso = now.toISOString();
  const claimed = await db.execute<{ id: string; attempts: number }>(sql`
    with due as (
      select d.id, d.next_attempt_at,
             row_number() over (partition by d.webhook_id order by d.next_attempt_at) as rn
      from webhook_deliveries d
      where d.state = 'pending' and d.next_attempt_at <= ${nowIso}::timestamptz
        and (d.locked_until is null or d.locked_until <= ${nowIso}::timestamptz)
        and not exists (
          select 1 from webhook_deliveries f
          where f.webhook_id = d.webhook_id and f.state = 'pending' and f.locked_until > ${nowIso}::timestamptz)
    ),
    picked as (
      select w.id from webhook_deliveries w
      where w.id in (select id from due where rn <= ${opts.perEndpoint} order by next_attempt_at limit ${opts.batch})
      for update skip locked
    )
    update webhook_deliveries u
       set locked_until = ${leaseUntil.toISOString()}::timestamptz, attempts = u.attempts + 1
      from picked where u.id = picked.id
    returning u.id, u.attempts`);
  const rows = (claimed as unknown as { rows: { id: string; attempts: number }[] }).rows;
  if (rows.length === 0) return [];
  const attempts = new Map(rows.map((r) => [r.id, Number(r.attempts)]));
  const details = await db
    .select({
      id: webhookDeliveries.id,
      companyId: webhookDeliveries.companyId,
      webhookId: webhookDeliveries.webhookId,
      eventType: webhookDeliveries.eventType,
      url: webhooks.url,
      enabled: webhooks.enabled,
      secret: webhooks.secret,
      previousSecret: webhooks.previousSecret,
      previousSecretExpiresAt: webhooks.previousSecretExpiresAt,
      payload: outboxEvents.payload,
    })
    .from(webhookDeliveries)
    .innerJoin(webhooks, eq(webhooks.id, webhookDeliveries.webhookId))
    .innerJoin(outboxEvents, eq(outboxEvents.id, webhookDeliveries.eventId))
    .where(inArray(webhookDeliveries.id, [...attempts.keys()]));
  return details.map((d) => ({
    id: d.id,
    companyId: d.companyId,
    webhookId: d.webhookId,
    eventType: d.eventType,
    attempt: attempts.get(d.id) ?? 1,
    url: d.url,
    enabled: d.enabled,
    secrets: d.previousSecret && d.previousSecretExpiresAt && d.previousSecretExpiresAt > now ? [d.secret, d.previousSecret] : [d.secret],
    body: JSON.stringify(d.payload),
  }));
}
