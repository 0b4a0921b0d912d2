import { getTableColumns, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { auditLog } from '../../db/schema/index.js';
import { createGroupCommit } from '../../db/group-commit.js';
import { AUDIT_COLUMN_KEYS, AUDIT_COLUMNS } from './audit-insert-sql.js';

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
 * One audit row as the JSON array the statement reads, its values in the order of its column list:
 * positions rather than named fields, which PostgreSQL reads for a third of the CPU (measured, 24
 * rows: 320 -> 100 µs on PostgreSQL, 1,070 -> 730 µs on PGlite) and which make a shorter text.
 */
const DEFAULTS: Partial<Record<(typeof AUDIT_COLUMN_KEYS)[number], unknown>> = { outcome: 'success', details: {} };
const recordOf = (r: AuditRow) => AUDIT_COLUMN_KEYS.map((k) => r[k] ?? DEFAULTS[k] ?? null);

/** Each array element read back as its column's type: `(r->>0)::uuid, ...`, jsonb as is. */
const ELEMENTS = sql.raw(
  AUDIT_COLUMN_KEYS.map((k, i) => {
    const type = getTableColumns(auditLog)[k].getSQLType();
    return type === 'jsonb' ? `r->${i}` : `(r->>${i})::${type}`;
  }).join(', '),
);

// The batch travels as one JSON text parameter (cast from text: a driver that knows the jsonb type
// would otherwise encode the string again), whatever the batch size: the statement text never
// changes and no per-row parameters are built.
const insertRows = (rows: string) => sql`insert into audit_log (${AUDIT_COLUMNS})
select ${ELEMENTS}
from jsonb_array_elements(${rows}::text::jsonb) as r`;

/**
 * Group commit for the high-volume key-use audit rows (docs/adr/0005-audit-group-commit.md).
 * Rows that arrive while a batch is being committed wait for the next batch, so under load one
 * statement (one WAL flush) carries many rows, and with no load a row is committed at once with no
 * timer delay. Every caller awaits the commit of the batch that holds its row, so no answered
 * request can lose its row on a crash.
 */
export function createAuditWriter(db: Db, opts: { maxBatch?: number; maxInFlight?: number } = {}): AuditWriter {
  // Per key, a time the stored last use is known to be at or after (as the last statement that
  // touched it answered): while that is within the precision of a use, updating would change
  // nothing, so the batch is one plain INSERT. Forgotten wholesale when large; forgetting only costs an UPDATE.
  const knownLastUse = new Map<string, number>();
  async function commit(batch: { row: AuditRow; use: KeyUse | undefined }[]): Promise<void[]> {
    // Latest use per key: one row update per distinct key per batch, not one per request.
    const uses = new Map<string, KeyUse>();
    for (const p of batch) if (p.use && (uses.get(p.use.keyId)?.at.getTime() ?? 0) < p.use.at.getTime()) uses.set(p.use.keyId, p.use);
    for (const u of uses.values()) if ((knownLastUse.get(u.keyId) ?? -Infinity) >= u.at.getTime() - LAST_USED_PRECISION_MS) uses.delete(u.keyId);
    const rows = JSON.stringify(batch.map((p) => recordOf(p.row)));
    const statement =
      uses.size === 0
        ? insertRows(rows)
        : // One statement (its own transaction): the rows and the keys' last use commit together.
          // To the minute: a busy key's row is then written once a minute, not once per batch, so
          // concurrent batches do not queue on its row lock. It answers each key's stored last use
          // (written now or already within the minute), so later batches of that minute send the
          // plain INSERT.
          sql`with inserted as (${insertRows(rows)}),
u as (select * from jsonb_to_recordset(${JSON.stringify([...uses.values()].map((u) => ({ id: u.keyId, at: u.at, ip: u.ip })))}::text::jsonb) as u(id uuid, at timestamptz, ip text)),
updated as (update api_keys k set last_used_at = u.at, last_used_ip = u.ip from u
  where k.id = u.id and (k.last_used_at is null or k.last_used_at < u.at - make_interval(secs => ${LAST_USED_PRECISION_MS / 1000}))
  returning k.id, k.last_used_at)
select k.id, (extract(epoch from coalesce(updated.last_used_at, k.last_used_at)) * 1000)::float8 as stored_ms
from u join api_keys k on k.id = u.id left join updated on updated.id = k.id`;
    // Rows of many companies in one statement: the group commit runs it as Cradle's own code.
    const result = await db.execute(statement);
    if (uses.size > 0) {
      if (knownLastUse.size > 10_000) knownLastUse.clear();
      for (const r of (result as unknown as { rows: { id: string; stored_ms: number | null }[] }).rows) {
        // Stored uses only move forward: keep the latest known (batches may answer out of order).
        if (r.stored_ms !== null) knownLastUse.set(r.id, Math.max(Number(r.stored_ms), knownLastUse.get(r.id) ?? -Infinity));
      }
    }
    return batch.map(() => undefined);
  }
  const group = createGroupCommit(commit, opts);
  return { write: (row, use) => group.submit({ row, use }), drain: () => group.drain() };
}
