import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { findings, sarifScans } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { conflict, validation } from '../../kernel/errors.js';
import { lockFor } from '../../db/advisory-lock.js';
import { gzip } from '../../kernel/evidence-store.js';
import { newId } from '../../kernel/ids.js';
import { type DocumentLimits, readJsonDocument } from '../../kernel/json-document.js';
import { recordAudit } from '../audit/record-audit.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { getProductByIdentifier } from '../products/get-product.js';
import { type ExtractedFinding, type ExtractOptions, extractFindings } from './findings.extract.js';
import type { PushSarifResult } from './findings.schemas.js';
import { fixFindings, insertFindings, reopenFindings } from './findings.store.js';
import { validateSarif } from './findings.validate.js';

export type PushSarifOptions = DocumentLimits & ExtractOptions & {
  /** Most results accepted in one log (default 500,000). */
  maxResults?: number;
};
export const DEFAULT_MAX_RESULTS = 500_000;

/** Parses, validates and extracts: the CPU-heavy part, run before any transaction opens. */
export function readSarif(raw: string | Buffer, opts: PushSarifOptions = {}) {
  const { doc, bytes, sha256 } = readJsonDocument(raw, opts);
  validateSarif(doc);
  const extracted = extractFindings(doc, opts);
  const max = opts.maxResults ?? DEFAULT_MAX_RESULTS;
  if (extracted.resultCount > max) throw validation(`the log holds ${extracted.resultCount} results; the limit is ${max}`);
  return { ...extracted, bytes, sha256 };
}

/**
 * Pushes a SARIF 2.1.0 log for one of the company's products and reconciles, per tool in the
 * log: a finding not seen before is new; an open one seen again is unchanged (left untouched,
 * so pushing the same log twice changes nothing); a fixed one seen again is reopened; an open one
 * the tool no longer reports is fixed. Tools absent from the log keep their findings as they are.
 */
export async function pushSarif(db: Db, ctx: Context, companyId: string, productIdentifier: string, raw: string | Buffer, opts: PushSarifOptions = {}): Promise<PushSarifResult> {
  const product = await getProductByIdentifier(db, companyId, productIdentifier);
  if (product.archivedAt) throw conflict(`product "${product.identifier}" is archived: restore it before adding evidence`);
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  const compressed = gzip(bytes);
  compressed.catch(() => {}); // awaited below; avoid an unhandled rejection if reading throws first
  const read = readSarif(bytes, opts);
  const document = await compressed;

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
      id: scope.scanId, companyId, productId: product.id, tools, resultCount: read.resultCount, findingCount,
      newCount: counts.new, fixedCount: counts.fixed, reopenedCount: counts.reopened, unchangedCount: counts.unchanged,
      sha256: read.sha256, byteSize: bytes.length, document, createdAt: now,
    });
    const result: PushSarifResult = {
      id: scope.scanId, productIdentifier: product.identifier, tools, resultCount: read.resultCount, findingCount, ...counts, createdAt: now.toISOString(),
    };
    const { createdAt: _c, ...summary } = result;
    await recordAudit(tx, ctx, { companyId, action: 'sarif.push', targetType: 'sarif_scan', targetId: scope.scanId, details: { ...summary, sha256: read.sha256 }, at: now });
    await enqueueEvent(tx, companyId, 'sarif.ingested', summary, now);
    return result;
  });
}
