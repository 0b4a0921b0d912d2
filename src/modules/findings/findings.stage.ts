import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { sarifStages } from '../../db/schema/index.js';
import { selectRows } from '../../db/sql-rows.js';
import { conflict } from '../../kernel/errors.js';

// ADR 0025: a SARIF push writes its new findings and its fixes and reopenings before the
// transaction that stores its scan, each chunk a statement of its own, so that on the embedded
// database (one session for every company) no statement of the push holds the others for long.
// The rows are invisible until the scan row exists (the `findings_published` view); the
// transaction stores only the scan, its audit row and its event.

/** Rows per staged statement: the longest another company's statement waits behind a push's write. */
export const STAGE_CHUNK_ROWS = 500;

/** A claim whose heartbeat is this old belongs to a push that never ended (its process stopped). */
export const STALE_CLAIM_MS = 60_000;

/** How often a push waiting for another push of the same product looks again. */
const CLAIM_POLL_MS = 50;

export type Stage = { companyId: string; productId: string; scanId: string };

/**
 * Takes the product's turn: one SARIF push at a time per product, from its first staged row until
 * its transitions are folded in (the reconciliation reads the findings as they are). A push that
 * finds another one's claim waits for it; a claim left still for STALE_CLAIM_MS is taken over and
 * its rows removed (or, when its scan was stored, folded in). Leftovers of the company's other
 * products are swept on the way.
 */
export async function claimProduct(db: Db, s: Stage): Promise<void> {
  await sweepStaleClaims(db, s.companyId);
  for (;;) {
    const taken = await db
      .insert(sarifStages)
      .values({ productId: s.productId, companyId: s.companyId, scanId: s.scanId, heartbeatAt: new Date() })
      .onConflictDoNothing()
      .returning({ scanId: sarifStages.scanId });
    if (taken.length > 0) break;
    await sleep(CLAIM_POLL_MS);
    await sweepStaleClaims(db, s.companyId, s.productId);
  }
  // A push that stored its scan but stopped before folding its transitions in left them behind.
  await foldPublished(db, s);
}

/** Moves the claim's heartbeat; throws when the claim is no longer this push's (taken over as stale). */
export async function heartbeat(db: Executor, s: Stage): Promise<void> {
  const held = await db
    .update(sarifStages)
    .set({ heartbeatAt: new Date() })
    .where(and(eq(sarifStages.productId, s.productId), eq(sarifStages.scanId, s.scanId)))
    .returning({ scanId: sarifStages.scanId });
  if (held.length === 0) throw conflict('this SARIF push was interrupted for too long and another push of the product took its turn: push again');
}

/** Ends the product's turn. */
export async function releaseClaim(db: Db, s: Stage): Promise<void> {
  await db.delete(sarifStages).where(and(eq(sarifStages.productId, s.productId), eq(sarifStages.scanId, s.scanId)));
}

const scanStored = (scanId: string) => sql`exists (select 1 from sarif_scans where id = ${scanId}::uuid)`;

/**
 * Folds the transitions of the product's stored scans into their findings, a chunk per statement;
 * each statement deletes the transitions it applies, so a chunk is folded exactly once. What
 * readers see does not change: the view applied them already.
 */
export async function foldPublished(db: Db, s: Omit<Stage, 'scanId'>): Promise<void> {
  for (;;) {
    const done = await selectRows<{ id: string }>(
      db,
      sql`with t as (
        delete from finding_transitions where finding_id in (
          select t.finding_id from finding_transitions t
          join findings f on f.id = t.finding_id and f.product_id = ${s.productId}::uuid
          join sarif_scans sc on sc.id = t.scan_id
          where t.company_id = ${s.companyId}::uuid
          limit ${STAGE_CHUNK_ROWS})
        returning *)
      update findings f set
        state = case t.kind when 'fix' then 'fixed' else 'open' end,
        severity = case when t.kind = 'reopen' then t.severity else f.severity end,
        level = case when t.kind = 'reopen' then t.level else f.level end,
        security_severity = case when t.kind = 'reopen' then t.security_severity else f.security_severity end,
        message = case when t.kind = 'reopen' then t.message else f.message end,
        artifact_uri = case when t.kind = 'reopen' then t.artifact_uri else f.artifact_uri end,
        start_line = case when t.kind = 'reopen' then t.start_line else f.start_line end,
        fixed_scan_id = case when t.kind = 'fix' then t.scan_id end,
        fixed_at = case when t.kind = 'fix' then t.at end,
        reopen_count = f.reopen_count + case when t.kind = 'reopen' then 1 else 0 end,
        updated_at = t.at
      from t where f.id = t.finding_id and f.company_id = ${s.companyId}::uuid
      returning f.id`,
    );
    if (done.length < STAGE_CHUNK_ROWS) return;
  }
}

/**
 * Removes what a push wrote ahead of its scan, a chunk per statement. Guarded by the scan row's
 * absence, so an error reported for a transaction that did commit (a connection lost at COMMIT)
 * removes nothing.
 */
export async function discardStage(db: Db, s: Stage): Promise<void> {
  const unstored = sql`not ${scanStored(s.scanId)}`;
  for (;;) {
    const gone = await selectRows<{ id: string }>(
      db,
      sql`delete from finding_transitions where finding_id in (
          select finding_id from finding_transitions where scan_id = ${s.scanId}::uuid and company_id = ${s.companyId}::uuid limit ${STAGE_CHUNK_ROWS})
        and ${unstored} returning finding_id as id`,
    );
    if (gone.length < STAGE_CHUNK_ROWS) break;
  }
  for (;;) {
    const gone = await selectRows<{ id: string }>(
      db,
      sql`delete from findings where id in (
          select id from findings where product_id = ${s.productId}::uuid and company_id = ${s.companyId}::uuid
            and first_seen_scan_id = ${s.scanId}::uuid limit ${STAGE_CHUNK_ROWS})
        and ${unstored} returning id`,
    );
    if (gone.length < STAGE_CHUNK_ROWS) break;
  }
}

/** Claims of the company (or of one product) whose push stopped: their rows removed or folded in, the claim ended. */
async function sweepStaleClaims(db: Db, companyId: string, productId?: string): Promise<void> {
  const stale = await db
    .select({ productId: sarifStages.productId, scanId: sarifStages.scanId })
    .from(sarifStages)
    .where(
      and(
        eq(sarifStages.companyId, companyId),
        productId ? eq(sarifStages.productId, productId) : undefined,
        lt(sarifStages.heartbeatAt, new Date(Date.now() - STALE_CLAIM_MS)),
      ),
    );
  for (const c of stale) {
    const s = { companyId, ...c };
    await discardStage(db, s);
    await foldPublished(db, s);
    await releaseClaim(db, s);
  }
}
