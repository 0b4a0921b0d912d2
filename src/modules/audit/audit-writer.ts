import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys, auditLog } from '../../db/schema/index.js';

export type AuditRow = typeof auditLog.$inferInsert;
/** A key's last use, folded into the same commit as its audit row. */
export type KeyUse = { keyId: string; at: Date; ip: string | null };

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
export function createAuditWriter(db: Db, opts: { maxBatch?: number } = {}): AuditWriter {
  const maxBatch = opts.maxBatch ?? 500;
  let queue: Pending[] = [];
  let running: Promise<void> | undefined;

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
          .where(and(eq(apiKeys.id, u.keyId), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, u.at))));
      }
    });
  }

  async function loop(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch);
      queue = queue.slice(batch.length);
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
  }

  function kick(): void {
    if (running) return;
    running = new Promise<void>((resolve) => setImmediate(resolve))
      .then(loop)
      .finally(() => {
        running = undefined;
        if (queue.length > 0) kick();
      });
  }

  return {
    write(row, use) {
      return new Promise<void>((resolve, reject) => {
        queue.push({ row, use, resolve, reject });
        kick();
      });
    },
    async drain() {
      while (running) await running;
    },
  };
}
