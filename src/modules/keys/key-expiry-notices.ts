import { and, gt, isNull, lte, ne, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys } from '../../db/schema/index.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';

/** A key this close to its expiry is announced (`api_key.expiring`, and the administrators' mail). */
export const KEY_EXPIRY_NOTICE_MS = 7 * 24 * 3_600_000;

export type KeyExpiryNotice = { companyId: string; keyId: string; name: string; keyHint: string; expiresAt: Date };

/**
 * One pass over every company's keys: each key that expires within KEY_EXPIRY_NOTICE_MS and has not
 * been announced for this expiry is marked and its event written, in one transaction. The mark is
 * the claim: two instances racing update each row once (the second finds it marked), and a key
 * whose expiry moves later is announced again when the new one comes close. An expired key is not
 * announced: it already fails every request with a clear 401.
 */
export async function raiseKeyExpiryNotices(db: Db, now = new Date()): Promise<KeyExpiryNotice[]> {
  return db.transaction(async (tx) => {
    const rows = await tx
      .update(apiKeys)
      .set({ expiryNoticeFor: sql`${apiKeys.expiresAt}` })
      .where(
        and(
          gt(apiKeys.expiresAt, now),
          lte(apiKeys.expiresAt, new Date(now.getTime() + KEY_EXPIRY_NOTICE_MS)),
          or(isNull(apiKeys.expiryNoticeFor), ne(apiKeys.expiryNoticeFor, apiKeys.expiresAt)),
        ),
      )
      .returning({ companyId: apiKeys.companyId, keyId: apiKeys.id, name: apiKeys.name, keyHint: apiKeys.keyHint, expiresAt: apiKeys.expiresAt });
    for (const r of rows) {
      // The key's id, name and last four characters: what the key list shows, never the value.
      await enqueueEvent(tx, r.companyId, 'api_key.expiring', { keyId: r.keyId, name: r.name, keyHint: r.keyHint, expiresAt: r.expiresAt.toISOString() }, now);
    }
    return rows;
  });
}
