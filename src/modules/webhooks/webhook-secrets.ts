import { and, eq, isNotNull, notLike, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { webhooks } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';
import { lockFor } from '../../db/advisory-lock.js';
import { currentSealPrefix, openSecret, rewrapSecret, SecretBoxError, sealSecret } from '../../kernel/secret-box.js';

/** What binds an endpoint's sealed secrets to its row: a value copied to another endpoint does not open there. */
const aadOf = (webhookId: string): string => `webhook:${webhookId}`;

/** Tag of a value stored before sealing existed (migration 0016); sealed at start, never read. */
const PLAIN = 'plain:';

export const sealWebhookSecret = (webhookId: string, secret: string): string => sealSecret(secret, aadOf(webhookId));

/** The endpoint's usable secret; throws `SecretBoxError` for a value that does not open (wrong key, altered, another row's, unsealed). */
export const openWebhookSecret = (webhookId: string, sealed: string): string => openSecret(sealed, aadOf(webhookId));

export type SealReport = { sealed: number; rewrapped: number; failed: { webhookId: string; reason: string }[] };

/**
 * The start-up step (server.ts): seals the secrets stored before sealing existed and re-wraps those
 * sealed under an older operator key, in one transaction, serialised across instances. Idempotent:
 * a second run finds nothing. A value that does not open under any configured key stays as it is
 * and is reported (its endpoint's deliveries fail with that reason; the others go on).
 */
export async function sealWebhookSecrets(db: Db): Promise<SealReport> {
  const prefix = currentSealPrefix();
  return asSystem(() =>
    db.transaction(async (tx) => {
      await lockFor(tx, 'secrets', 'webhooks');
      const rows = await tx
        .select({ id: webhooks.id, secret: webhooks.secret, previousSecret: webhooks.previousSecret })
        .from(webhooks)
        .where(or(notLike(webhooks.secret, `${prefix}%`), and(isNotNull(webhooks.previousSecret), notLike(webhooks.previousSecret, `${prefix}%`))));
      const report: SealReport = { sealed: 0, rewrapped: 0, failed: [] };
      for (const row of rows) {
        const done = { sealed: 0, rewrapped: 0 };
        const rewrapped = (v: string): string => {
          done.rewrapped++;
          return rewrapSecret(v, aadOf(row.id));
        };
        const redo = (v: string): string => {
          if (!v.startsWith(PLAIN)) return v.startsWith(prefix) ? v : rewrapped(v);
          done.sealed++;
          return sealWebhookSecret(row.id, v.slice(PLAIN.length));
        };
        try {
          const secret = redo(row.secret);
          const previousSecret = row.previousSecret === null ? null : redo(row.previousSecret);
          await tx.update(webhooks).set({ secret, previousSecret }).where(eq(webhooks.id, row.id));
          report.sealed += done.sealed;
          report.rewrapped += done.rewrapped;
        } catch (e) {
          if (!(e instanceof SecretBoxError)) throw e;
          report.failed.push({ webhookId: row.id, reason: e.message });
        }
      }
      return report;
    }),
  );
}
