import type { Db } from '../../db/client.js';
import { sarifScans } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { conflict } from '../../kernel/errors.js';
import { unpackChunks } from '../../kernel/chunked-json.js';
import { newId } from '../../kernel/ids.js';
import { ownBytes } from '../../kernel/worker-bytes.js';
import { offloadPool } from '../../kernel/offload-pool.js';
import { taskRef } from '../../kernel/worker-task.js';
import { recordAudit } from '../audit/record-audit.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { getProductByIdentifier } from '../products/get-product.js';
import { ARTIFACT_MAX_DEPTH, ARTIFACT_MAX_LENGTH } from './findings.artifact.js';
import type { ExtractedFinding } from './findings.extract.js';
import type * as FindingsRead from './findings.read.js';
import type { PushSarifOptions } from './findings.read.js';
import type { PushSarifResult } from './findings.schemas.js';
import { claimProduct, discardStage, foldPublished, heartbeat, releaseClaim, type Stage, STAGE_CHUNK_ROWS } from './findings.stage.js';
import { insertFindings, knownFindings, stageFixes, stageReopens } from './findings.store.js';

/** Reading a pushed SARIF log on the offload pool (listed in src/jobs/registry.ts). */
export const READ_SARIF_TASK = taskRef<typeof FindingsRead>()(import.meta.url, 'findings.read', 'readSarifTask');

/** Reads the log on a worker (kernel/worker-pool.ts), in the company's turn; the findings come back in chunks. */
async function readOffThread(companyId: string, raw: string | Buffer, opts: PushSarifOptions) {
  const body = ownBytes(typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw);
  const packed = await offloadPool().run(companyId, READ_SARIF_TASK, { body, opts }, [body.buffer as ArrayBuffer]);
  const byTool = new Map<string, ExtractedFinding[]>();
  for (const [tool, chunks] of packed.tools) byTool.set(tool, await unpackChunks<ExtractedFinding>(chunks));
  return {
    resultCount: packed.resultCount,
    artifactsCapped: packed.artifactsCapped,
    sha256: packed.sha256,
    byteSize: packed.byteSize,
    byTool,
    document: Buffer.from(packed.document.buffer, packed.document.byteOffset, packed.document.byteLength),
  };
}

type Read = Awaited<ReturnType<typeof readOffThread>>;
type Counts = { new: number; fixed: number; reopened: number; unchanged: number };

/**
 * Reconciles each tool's findings with the product's, writing the outcome ahead of the scan
 * (ADR 0025): new findings, and the fixes and reopenings as transitions, a chunk per statement.
 */
async function stageFindings(db: Db, s: Stage & { now: Date }, read: Read): Promise<Counts> {
  const counts = { new: 0, fixed: 0, reopened: 0, unchanged: 0 };
  const beat = () => heartbeat(db, s);
  for (const [tool, found] of read.byTool) {
    const existing = await knownFindings(db, s, tool, STAGE_CHUNK_ROWS * 2);
    const known = new Map(existing.map((e) => [e.fingerprint, e]));
    const fresh: ExtractedFinding[] = [];
    const reopen: { id: string; f: ExtractedFinding }[] = [];
    const seen = new Set<string>();
    for (const f of found) {
      seen.add(f.fingerprint);
      const k = known.get(f.fingerprint);
      if (!k) fresh.push(f);
      else if (k.state === 'fixed') reopen.push({ id: k.id, f });
      else counts.unchanged++;
    }
    const gone = existing.filter((e) => e.state === 'open' && !seen.has(e.fingerprint)).map((e) => e.id);
    await beat();
    await insertFindings(db, s, fresh, STAGE_CHUNK_ROWS, beat);
    await stageReopens(db, s, reopen, STAGE_CHUNK_ROWS, beat);
    await stageFixes(db, s, gone, STAGE_CHUNK_ROWS, beat);
    counts.new += fresh.length;
    counts.reopened += reopen.length;
    counts.fixed += gone.length;
  }
  return counts;
}

/**
 * Pushes a SARIF 2.1.0 log for one of the company's products and reconciles, per tool in the
 * log: a finding not seen before is new; an open one seen again is unchanged (left untouched,
 * so pushing the same log twice changes nothing); a fixed one seen again is reopened; an open one
 * the tool no longer reports is fixed. Tools absent from the log keep their findings as they are.
 * The log is read on a worker thread, one at a time per company: `raw`, when a Buffer owning its
 * memory, is handed over (left empty). The outcome is written ahead of a short transaction that
 * stores the scan and makes all of it visible at once (ADR 0025); a push that fails leaves nothing.
 */
export async function pushSarif(
  db: Db,
  ctx: Context,
  companyId: string,
  productIdentifier: string,
  raw: string | Buffer,
  opts: PushSarifOptions = {},
): Promise<PushSarifResult> {
  const product = await getProductByIdentifier(db, companyId, productIdentifier);
  if (product.archivedAt) throw conflict(`product "${product.identifier}" is archived: restore it before adding evidence`);
  const read = await readOffThread(companyId, raw, opts);
  const stage: Stage = { companyId, productId: product.id, scanId: newId() };
  await claimProduct(db, stage);
  let result: PushSarifResult;
  try {
    const now = new Date();
    const counts = await stageFindings(db, { ...stage, now }, read);
    result = await storeScan(db, ctx, { ...stage, now, productIdentifier: product.identifier }, read, counts);
  } catch (e) {
    // The claim outlives a failed clean-up: the product's next push then removes the rows (findings.stage.ts).
    await discardStage(db, stage)
      .then(() => releaseClaim(db, stage))
      .catch(() => undefined);
    throw e;
  }
  // Nothing readers see changes from here; what a failure leaves is folded in by the product's next push.
  await foldPublished(db, stage).catch(() => undefined);
  await releaseClaim(db, stage).catch(() => undefined);
  return result;
}

/** The transaction that publishes the push: its scan row, audit row and event, while the push still holds its claim. */
async function storeScan(db: Db, ctx: Context, s: Stage & { now: Date; productIdentifier: string }, read: Read, counts: Counts): Promise<PushSarifResult> {
  const { companyId, scanId, now } = s;
  const tools = [...read.byTool.keys()];
  const findingCount = [...read.byTool.values()].reduce((n, list) => n + list.length, 0);
  return db.transaction(async (tx) => {
    await heartbeat(tx, s);
    await tx.insert(sarifScans).values({
      id: scanId,
      companyId,
      productId: s.productId,
      tools,
      resultCount: read.resultCount,
      findingCount,
      newCount: counts.new,
      fixedCount: counts.fixed,
      reopenedCount: counts.reopened,
      unchangedCount: counts.unchanged,
      sha256: read.sha256,
      byteSize: read.byteSize,
      document: read.document,
      createdAt: now,
    });
    const result: PushSarifResult = {
      id: scanId,
      productIdentifier: s.productIdentifier,
      tools,
      resultCount: read.resultCount,
      findingCount,
      ...counts,
      artifactCap: { maxLength: ARTIFACT_MAX_LENGTH, maxDepth: ARTIFACT_MAX_DEPTH, capped: read.artifactsCapped },
      createdAt: now.toISOString(),
    };
    const { createdAt: _c, ...summary } = result;
    await recordAudit(tx, ctx, {
      companyId,
      action: 'sarif.push',
      targetType: 'sarif_scan',
      targetId: scanId,
      details: { ...summary, sha256: read.sha256 },
      at: now,
    });
    await enqueueEvent(tx, companyId, 'sarif.ingested', summary, now);
    return result;
  });
}
