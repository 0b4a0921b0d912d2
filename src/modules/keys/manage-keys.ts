import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Executor } from '../../db/client.js';
import { apiKeys } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode, notFound } from '../../kernel/errors.js';
import { recordAudit } from '../audit/record-audit.js';
import { assertEnterprise } from './create-key.js';
import { newKeyValue } from './issue-key.js';
import { type ApiKeyView, type IssuedKey, toIssuedKey, toKeyView } from './keys.schemas.js';

const KeyId = z.uuid();

function assertUser(ctx: Context): void {
  if (ctx.actor.type !== 'user') throw new AppError(ErrorCode.UNAUTHENTICATED, 'API keys are managed from a signed-in session only');
}

/** The company's keys, newest first. Never the value or digest. */
export async function listKeys(db: Executor, companyId: string): Promise<ApiKeyView[]> {
  const rows = await db.select().from(apiKeys).where(eq(apiKeys.companyId, companyId)).orderBy(desc(apiKeys.createdAt));
  const now = new Date();
  return rows.map((r) => toKeyView(r, now));
}

/**
 * Issues a new value for a key and stops the old one at once: the digest is replaced in the same
 * row, and the update raises the key-state version the key cache checks (ADR 0011), so the old value
 * is unknown from the commit on, on every instance. Another company's key id is NOT_FOUND.
 */
export async function rotateKey(db: Db, ctx: Context, companyId: string, keyId: string): Promise<IssuedKey> {
  assertUser(ctx);
  if (!KeyId.safeParse(keyId).success) throw notFound('API key');
  const secret = newKeyValue();
  return db.transaction(async (tx) => {
    const now = new Date();
    const [row] = await tx
      .update(apiKeys)
      .set({ keyDigest: secret.digest, keyHint: secret.hint, rotatedAt: now })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.companyId, companyId)))
      .returning();
    if (!row) throw notFound('API key');
    // Checked after the tenant lookup so another company's id still reads as not found.
    await assertEnterprise(tx, companyId);
    await recordAudit(tx, ctx, { companyId, action: 'keys.rotate', targetType: 'api_key', targetId: row.id, details: { name: row.name }, at: now });
    return toIssuedKey(row, secret.value);
  });
}

/** Revoking deletes the key (docs/access.md "API keys"). Its audit rows stay. */
export async function revokeKey(db: Db, ctx: Context, companyId: string, keyId: string): Promise<void> {
  assertUser(ctx);
  if (!KeyId.safeParse(keyId).success) throw notFound('API key');
  await db.transaction(async (tx) => {
    const [row] = await tx
      .delete(apiKeys)
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.companyId, companyId)))
      .returning({ id: apiKeys.id, name: apiKeys.name, hint: apiKeys.keyHint });
    if (!row) throw notFound('API key');
    await recordAudit(tx, ctx, { companyId, action: 'keys.revoke', targetType: 'api_key', targetId: row.id, details: { name: row.name, keyHint: row.hint } });
  });
}
