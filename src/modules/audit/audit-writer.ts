import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys, auditLog } from '../../db/schema/index.js';
import { createGroupCommit } from '../../kernel/group-commit.js';

export type AuditRow = typeof auditLog.$inferInsert;
/** A key's last use, folded into the same commit as its audit row. */
export type KeyUse = { keyId: string; at: Date; ip: string | null };

/** "Last used" is kept to this precision (display only; the audit log has every use). */
export const LAST_USED_PRECISION_MS = 60_000;

export type AuditWriter = {
  /** Resolves once the row is committed; the caller answers its request only then. */
  write(row: AuditRow, use?: KeyUse): Promise<void>;
  /** Waits for every queued row to be committed or refused. */
  drain(): Promise<void>;
};

/**
 * Group commit for the high-volume key-use audit rows (docs/adr/0005-audit-group-commit.md).
 * Rows that arrive while a batch is being committed wait for the next batch, so under load one
 * INSERT (one WAL flush) carries many rows, and with no load a row is committed at once with no
 * timer delay. Every caller awaits the commit of the batch that holds its row, so no answered
 * request can lose its row on a crash.
 */
export function createAuditWriter(db: Db, opts: { maxBatch?: number; maxInFlight?: number } = {}): AuditWriter {
  async function commit(batch: { row: AuditRow; use: KeyUse | undefined }[]): Promise<void[]> {
    // Latest use per key: one UPDATE per distinct key per batch, not one per request.
    const uses = new Map<string, KeyUse>();
    for (const p of batch) if (p.use && (uses.get(p.use.keyId)?.at.getTime() ?? 0) < p.use.at.getTime()) uses.set(p.use.keyId, p.use);
    await db.transaction(async (tx) => {
      await tx.insert(auditLog).values(batch.map((p) => p.row));
      for (const u of uses.values()) {
        await tx
          .update(apiKeys)
          .set({ lastUsedAt: u.at, lastUsedIp: u.ip })
          // To the minute: a busy key's row is then written once a minute, not once per batch,
          // so concurrent batches do not queue on its row lock.
          .where(and(eq(apiKeys.id, u.keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, new Date(u.at.getTime() - LAST_USED_PRECISION_MS)))));
      }
    });
    return batch.map(() => undefined);
  }
  const group = createGroupCommit(commit, opts);
  return { write: (row, use) => group.submit({ row, use }), drain: () => group.drain() };
}
