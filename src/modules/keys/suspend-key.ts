import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { apiKeys } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { notFound } from '../../kernel/errors.js';
import { recordAudit } from '../audit/record-audit.js';

export type KeyStatusChange = { id: string; companyId: string; suspended: boolean; changed: boolean };

const KeyId = z.uuid();

/**
 * Suspends (or lifts the suspension of) an API key. A suspended key answers 401 until lifted.
 * Idempotent: suspending a suspended key reports `changed: false`. Unknown id: NOT_FOUND.
 */
export async function setKeySuspended(db: Db, ctx: Context, keyId: string, suspended: boolean): Promise<KeyStatusChange> {
  if (!KeyId.safeParse(keyId).success) throw notFound(`API key "${keyId}"`);
  return db.transaction(async (tx) => {
    const now = new Date();
    const [row] = await tx
      .update(apiKeys)
      .set({ suspendedAt: suspended ? now : null })
      .where(and(eq(apiKeys.id, keyId), suspended ? isNull(apiKeys.suspendedAt) : isNotNull(apiKeys.suspendedAt)))
      .returning({ id: apiKeys.id, companyId: apiKeys.companyId });
    if (!row) {
      const [existing] = await tx.select({ companyId: apiKeys.companyId }).from(apiKeys).where(eq(apiKeys.id, keyId));
      if (!existing) throw notFound(`API key "${keyId}"`);
      return { id: keyId, companyId: existing.companyId, suspended, changed: false };
    }
    await recordAudit(tx, ctx, {
      companyId: row.companyId,
      action: suspended ? 'keys.suspend' : 'keys.unsuspend',
      targetType: 'api_key',
      targetId: row.id,
      at: now,
    });
    return { id: row.id, companyId: row.companyId, suspended, changed: true };
  });
}
