import { and, count, desc, eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { webhookDeliveries, webhooks } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { lockFor } from '../../db/advisory-lock.js';
import { AppError, ErrorCode, notFound } from '../../kernel/errors.js';
import { isUuid, newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { generateWebhookSecret } from './signing.js';
import { checkWebhookUrl } from './url-guard.js';
import { sealWebhookSecret } from './webhook-secrets.js';
import type { z } from 'zod';
import { type RegisteredWebhook, RegisterWebhookInput, toWebhookView, type WebhookView } from './webhooks.schemas.js';

/** Endpoints per company: each is a stream of deliveries the engine shares fairly (issue 24). */
export const MAX_WEBHOOKS_PER_COMPANY = 25;

/**
 * Registers an endpoint. The URL passes the SSRF guard now and again before every attempt (DNS may
 * change). Without a secret one is generated; `secret` is returned only then, and only here.
 */
export async function registerWebhook(
  db: Db,
  ctx: Context,
  companyId: string,
  raw: unknown,
  opts: { allowPrivate: boolean },
): Promise<z.infer<typeof RegisteredWebhook>> {
  const input = parseInput(RegisterWebhookInput, raw);
  const url = checkWebhookUrl(input.url, opts.allowPrivate).toString();
  const generated = input.secret === undefined ? generateWebhookSecret() : undefined;
  return db.transaction(async (tx) => {
    const now = new Date();
    // Counted under a per-company lock, so parallel registrations cannot pass the cap together.
    await lockFor(tx, 'webhooks', companyId);
    const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(webhooks).where(eq(webhooks.companyId, companyId));
    if (Number(n) >= MAX_WEBHOOKS_PER_COMPANY) {
      throw new AppError(ErrorCode.CONFLICT, `a company may register at most ${MAX_WEBHOOKS_PER_COMPANY} webhook endpoints; delete one first`);
    }
    const id = newId();
    const secret = sealWebhookSecret(id, input.secret ?? (generated as string));
    const [row] = await tx
      .insert(webhooks)
      .values({ id, companyId, url, event: input.event ?? null, secret, createdAt: now, updatedAt: now })
      .returning();
    if (!row) throw new Error('insert returned no row');
    await recordAudit(tx, ctx, {
      companyId,
      action: 'webhooks.register',
      targetType: 'webhook',
      targetId: row.id,
      // The URL host and event only: the secret never enters the audit log.
      details: { host: new URL(url).host, event: row.event, secretGenerated: generated !== undefined },
      at: now,
    });
    return { ...toWebhookView(row), ...(generated ? { secret: generated } : {}) };
  });
}

export async function listWebhooks(db: Executor, companyId: string): Promise<WebhookView[]> {
  const rows = await db.select().from(webhooks).where(eq(webhooks.companyId, companyId)).orderBy(desc(webhooks.createdAt));
  return rows.map(toWebhookView);
}

/** One endpoint of the company; another company's id: NOT_FOUND. A malformed id is simply not found. */
export async function getWebhook(db: Executor, companyId: string, id: string): Promise<WebhookView> {
  const [row] = isUuid(id)
    ? await db
        .select()
        .from(webhooks)
        .where(and(eq(webhooks.companyId, companyId), eq(webhooks.id, id)))
    : [];
  if (!row) throw notFound('webhook');
  return toWebhookView(row);
}

/** Deletes an endpoint and its delivery history. Another company's id: NOT_FOUND. */
export async function deleteWebhook(db: Db, ctx: Context, companyId: string, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!isUuid(id)) throw notFound('webhook');
    const [row] = await tx
      .delete(webhooks)
      .where(and(eq(webhooks.companyId, companyId), eq(webhooks.id, id)))
      .returning({ id: webhooks.id });
    if (!row) throw notFound('webhook');
    await recordAudit(tx, ctx, { companyId, action: 'webhooks.delete', targetType: 'webhook', targetId: id });
  });
}

/** Turns an endpoint on or off; turning it off cancels its pending deliveries. */
export async function setWebhookEnabled(
  db: Db,
  ctx: Context,
  { companyId, id, enabled, reason }: { companyId: string; id: string; enabled: boolean; reason?: string },
): Promise<WebhookView> {
  if (!isUuid(id)) throw notFound('webhook');
  return db.transaction(async (tx) => {
    const now = new Date();
    const [row] = await tx
      .update(webhooks)
      .set({ enabled, disabledReason: enabled ? null : (reason ?? 'disabled by the company'), updatedAt: now })
      .where(and(eq(webhooks.companyId, companyId), eq(webhooks.id, id)))
      .returning();
    if (!row) throw notFound('webhook');
    if (!enabled) {
      await tx
        .update(webhookDeliveries)
        .set({ state: 'cancelled', finishedAt: now, lockedUntil: null })
        .where(and(eq(webhookDeliveries.webhookId, id), eq(webhookDeliveries.state, 'pending')));
    }
    await recordAudit(tx, ctx, {
      companyId,
      action: enabled ? 'webhooks.enable' : 'webhooks.disable',
      targetType: 'webhook',
      targetId: id,
      details: enabled ? {} : { reason: row.disabledReason },
      at: now,
    });
    return toWebhookView(row);
  });
}

/**
 * Rotates the signing secret. The old secret keeps signing beside the new one for `overlapHours`,
 * so receivers can switch without dropping a delivery. The new secret is returned once.
 */
export async function rotateWebhookSecret(
  db: Db,
  ctx: Context,
  { companyId, id, overlapHours = 24 }: { companyId: string; id: string; overlapHours?: number },
): Promise<{ secret: string }> {
  if (!isUuid(id)) throw notFound('webhook');
  const secret = generateWebhookSecret();
  await db.transaction(async (tx) => {
    const now = new Date();
    const [cur] = await tx
      .select({ secret: webhooks.secret })
      .from(webhooks)
      .where(and(eq(webhooks.companyId, companyId), eq(webhooks.id, id)));
    if (!cur) throw notFound('webhook');
    await tx
      .update(webhooks)
      // The current sealed value moves as it is: both columns are bound to the same row.
      .set({
        secret: sealWebhookSecret(id, secret),
        previousSecret: cur.secret,
        previousSecretExpiresAt: new Date(now.getTime() + overlapHours * 3_600_000),
        updatedAt: now,
      })
      .where(and(eq(webhooks.companyId, companyId), eq(webhooks.id, id)));
    await recordAudit(tx, ctx, { companyId, action: 'webhooks.rotate_secret', targetType: 'webhook', targetId: id, details: { overlapHours }, at: now });
  });
  return { secret };
}
