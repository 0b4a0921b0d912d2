import { inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { outboxEvents, webhookDeliveries, webhooks } from '../../db/schema/index.js';
import { eq } from 'drizzle-orm';
import { SecretBoxError } from '../../kernel/secret-box.js';
import { openWebhookSecret } from './webhook-secrets.js';

export type ClaimedDelivery = {
  id: string;
  companyId: string;
  webhookId: string;
  eventType: string;
  attempt: number;
  url: string;
  enabled: boolean;
  secrets: string[];
  /** Why the endpoint's secret could not be opened (wrong operator key, altered value): the attempt fails with it. */
  secretError?: string;
  body: string;
};

/** The secrets that sign (the previous one too while its overlap lasts), or why they cannot be opened. */
function openSecrets(
  d: { webhookId: string; secret: string; previousSecret: string | null; previousSecretExpiresAt: Date | null },
  now: Date,
): { secrets: string[]; secretError?: string } {
  const sealed = d.previousSecret && d.previousSecretExpiresAt && d.previousSecretExpiresAt > now ? [d.secret, d.previousSecret] : [d.secret];
  try {
    return { secrets: sealed.map((s) => openWebhookSecret(d.webhookId, s)) };
  } catch (e) {
    if (!(e instanceof SecretBoxError)) throw e;
    return { secrets: [], secretError: `the endpoint's signing secret cannot be opened: ${e.message}` };
  }
}

/**
 * Claims due deliveries for one attempt each: sets a lease (`locked_until`) and counts the attempt.
 * A worker that dies mid-attempt simply lets its lease expire and another takes the delivery over
 * (at-least-once). One endpoint never has more than `perEndpoint` attempts in flight (leased), and
 * one company never more than `perCompany`, counting those already out; the claim takes every
 * company's oldest due delivery before any company's second (round robin). So a company's slow or
 * dead endpoints hold at most `perCompany` worker slots, however many it registers (5 tarpit
 * endpoints once delayed another company's event from 46 ms to 13 s; issue 24).
 */
export async function claimDueDeliveries(
  db: Db,
  now: Date,
  opts: { batch: number; perEndpoint: number; perCompany: number; leaseMs: number },
): Promise<ClaimedDelivery[]> {
  const leaseUntil = new Date(now.getTime() + opts.leaseMs);
  const nowIso = now.toISOString();
  const claimed = await db.execute<{ id: string; attempts: number }>(sql`
    with leased as (
      select webhook_id, company_id from webhook_deliveries
      where state = 'pending' and locked_until > ${nowIso}::timestamptz
    ),
    inflight as (select webhook_id, count(*)::int as n from leased group by webhook_id),
    company_inflight as (select company_id, count(*)::int as n from leased group by company_id),
    -- Per endpoint, its oldest due deliveries up to its free slots: an index probe per endpoint,
    -- so a long backlog (a dead endpoint's) costs nothing to skip.
    candidates as (
      select x.id, x.next_attempt_at, e.company_id
      from webhooks e
      left join inflight i on i.webhook_id = e.id
      cross join lateral (
        select d.id, d.next_attempt_at from webhook_deliveries d
        where d.webhook_id = e.id and d.state = 'pending' and d.next_attempt_at <= ${nowIso}::timestamptz
          and (d.locked_until is null or d.locked_until <= ${nowIso}::timestamptz)
        order by d.next_attempt_at
        limit greatest(${opts.perEndpoint} - coalesce(i.n, 0), 0)
      ) x
    ),
    -- Each company's candidates in age order, cut at its free slots; rank 1 of every company first.
    ranked as (
      select c.id, c.next_attempt_at, c.company_id,
             row_number() over (partition by c.company_id order by c.next_attempt_at) as rk
      from candidates c
    ),
    fair as (
      select r.id, r.rk, r.next_attempt_at from ranked r
      left join company_inflight ci on ci.company_id = r.company_id
      where r.rk <= ${opts.perCompany} - coalesce(ci.n, 0)
    ),
    -- The lease condition is repeated on the locked row itself: under READ COMMITTED a row another
    -- instance claimed and committed meanwhile is re-checked on its new version and dropped, so two
    -- instances never claim the same attempt.
    picked as (
      select w.id from webhook_deliveries w
      where w.id in (select id from fair order by rk, next_attempt_at limit ${opts.batch})
        and w.state = 'pending' and (w.locked_until is null or w.locked_until <= ${nowIso}::timestamptz)
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
    ...openSecrets(d, now),
    body: JSON.stringify(d.payload),
  }));
}
