import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { findings, sarifScans } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { conflict } from '../../kernel/errors.js';
import { lockFor } from '../../db/advisory-lock.js';
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
import { fixFindings, insertFindings, reopenFindings } from './findings.store.js';

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

/**
 * Pushes a SARIF 2.1.0 log for one of the company's products and reconciles, per tool in the
 * log: a finding not seen before is new; an open one seen again is unchanged (left untouched,
 * so pushing the same log twice changes nothing); a fixed one seen again is reopened; an open one
 * the tool no longer reports is fixed. Tools absent from the log keep their findings as they are.
 * The log is read on a worker thread, one at a time per company: `raw`, when a Buffer owning its
 * memory, is handed over (left empty).
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
  const { document } = read;

  return db.transaction(async (tx) => {
    // Per product, not per tool: one log may carry several tools, and the lock order stays trivial.
    await lockFor(tx, 'sarif', product.id);
    const now = new Date();
    const scope = { companyId, productId: product.id, scanId: newId(), now };
    const counts = { new: 0, fixed: 0, reopened: 0, unchanged: 0 };
    let findingCount = 0;
    for (const [tool, found] of read.byTool) {
      findingCount += found.length;
      const existing = await tx
        .select({ id: findings.id, fingerprint: findings.fingerprint, state: findings.state })
        .from(findings)
        .where(and(eq(findings.companyId, companyId), eq(findings.productId, product.id), eq(findings.tool, tool)));
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
      await insertFindings(tx, scope, fresh);
      await reopenFindings(tx, scope, reopen);
      await fixFindings(tx, scope, gone);
      counts.new += fresh.length;
      counts.reopened += reopen.length;
      counts.fixed += gone.length;
    }
    const tools = [...read.byTool.keys()];
    await tx.insert(sarifScans).values({
      id: scope.scanId,
      companyId,
      productId: product.id,
      tools,
      resultCount: read.resultCount,
      findingCount,
      newCount: counts.new,
      fixedCount: counts.fixed,
      reopenedCount: counts.reopened,
      unchangedCount: counts.unchanged,
      sha256: read.sha256,
      byteSize: read.byteSize,
      document,
      createdAt: now,
    });
    const result: PushSarifResult = {
      id: scope.scanId,
      productIdentifier: product.identifier,
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
      targetId: scope.scanId,
      details: { ...summary, sha256: read.sha256 },
      at: now,
    });
    await enqueueEvent(tx, companyId, 'sarif.ingested', summary, now);
    return result;
  });
}
