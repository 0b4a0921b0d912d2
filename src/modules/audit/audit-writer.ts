import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys, auditLog } from '../../db/schema/index.js';

export type AuditRow = typeof auditLog.$inferInsert;
/** A key's last use, folded into the same commit as its audit row. */
export type KeyUse = { keyId: string; at: Date; ip: string | null };

/** "Last used" is kept to this precision (display only; the audit log has every use). */
export const LAST_USED_PRECISION_MS = 60_000;

type Pending = { row: AuditRow; use: KeyUse | undefined; resolve: () => void; reject: (e: unknown) => void };

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
  const maxBatch = opts.maxBatch ?? 500;
  // Batches committing at once. More than one lets a new batch start while the previous one waits
  // for its WAL flush (PostgreSQL merges concurrent flushes itself); PGlite has one connection, so 1.
  const maxInFlight = opts.maxInFlight ?? 1;
  let queue: Pending[] = [];
  const running = new Set<Promise<void>>();

  async function commit(batch: Pending[]): Promise<void> {
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
  }

  async function commitBatch(batch: Pending[]): Promise<void> {
    try {
      await commit(batch);
      for (const p of batch) p.resolve();
    } catch {
      // One bad row (say, its company was deleted meanwhile) must not fail its neighbours:
      // retry one by one, and refuse only the rows that still fail.
      for (const p of batch) {
        try {
          await commit([p]);
          p.resolve();
        } catch (e) {
          p.reject(e);
        }
      }
    }
  }

  function kick(): void {
    if (running.size >= maxInFlight || queue.length === 0) return;
    // One event-loop turn of grace, so rows produced together share the batch.
    const run: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        const batch = queue.slice(0, maxBatch);
        queue = queue.slice(batch.length);
        return batch.length > 0 ? commitBatch(batch) : undefined;
      })
      .finally(() => {
        running.delete(run);
        kick();
      });
    running.add(run);
  }

  return {
    write(row, use) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, use, resolve, reject });
        kick();
      });
    },
    async drain() {
      while (running.size > 0) await Promise.all(running);
    },
  };
}
