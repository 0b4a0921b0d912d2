import { asc, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { sbomComponents, sbomDiffs, sbomDocuments, sboms } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { conflict, validation } from '../../kernel/errors.js';
import { lockFor } from '../../db/advisory-lock.js';
import { gzip } from '../../kernel/evidence-store.js';
import { newId } from '../../kernel/ids.js';
import { type DocumentLimits, readJsonDocument } from '../../kernel/json-document.js';
import { recordAudit } from '../audit/record-audit.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { packagesOf } from '../known-vulns/find-known-vulns.js';
import { matchSbom } from '../known-vulns/match-sbom.js';
import { getProductByIdentifier } from '../products/get-product.js';
import { detectSbom } from './sboms.detect.js';
import { type DiffComponent, diffComponents, type SbomDiff } from './sboms.diff.js';
import { normaliseCycloneDx } from './sboms.normalise-cyclonedx.js';
import { normaliseSpdx } from './sboms.normalise-spdx.js';
import type { NormalSbom } from './sboms.normalised.js';
import type { Sbom } from './sboms.schemas.js';
import { insertComponents, insertEdges } from './sboms.store.js';
import { validateSbom } from './sboms.validate.js';

export type PushSbomOptions = DocumentLimits & {
  /** Most components accepted in one document (default 500,000). */
  maxComponents?: number;
};
export const DEFAULT_MAX_COMPONENTS = 500_000;

/** Parses, validates and normalises: the CPU-heavy part, run before any transaction opens. */
export function readSbom(raw: string | Buffer, opts: PushSbomOptions = {}) {
  const { doc, bytes, sha256 } = readJsonDocument(raw, opts);
  const { format, specVersion } = detectSbom(doc);
  validateSbom(format, specVersion, doc);
  const normal: NormalSbom = format === 'cyclonedx' ? normaliseCycloneDx(doc) : normaliseSpdx(doc);
  const max = opts.maxComponents ?? DEFAULT_MAX_COMPONENTS;
  if (normal.components.length > max) {
    throw validation(`the document lists ${normal.components.length} components; the limit is ${max}`);
  }
  return { format, specVersion, normal, bytes, sha256 };
}

/**
 * Pushes an SBOM for one of the company's products: validates it against the official schema,
 * stores the original (gzip) and the normalised components and graph as a new version, and
 * diffs it against the previous version. One transaction with its audit row and outbox event:
 * a refused or failed push leaves nothing behind.
 */
export async function pushSbom(db: Db, ctx: Context, companyId: string, productIdentifier: string, raw: string | Buffer, opts: PushSbomOptions = {}): Promise<Sbom> {
  const product = await getProductByIdentifier(db, companyId, productIdentifier);
  if (product.archivedAt) throw conflict(`product "${product.identifier}" is archived: restore it before adding evidence`);
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  // Compression runs on the thread pool while the main thread parses and validates.
  const compressed = gzip(bytes);
  compressed.catch(() => {}); // awaited below; avoid an unhandled rejection if reading throws first
  const read = readSbom(bytes, opts);
  const document = await compressed;
  const { normal } = read;
  const packages = packagesOf(normal.components);

  return db.transaction(async (tx) => {
    await lockFor(tx, 'sbom', product.id);
    const [previous] = await tx
      .select({ id: sboms.id, version: sboms.version })
      .from(sboms)
      .where(eq(sboms.productId, product.id))
      .orderBy(desc(sboms.version))
      .limit(1);
    const before: DiffComponent[] = previous
      ? await tx
          .select({
            group: sbomComponents.group, name: sbomComponents.name, version: sbomComponents.version, purl: sbomComponents.purl,
            cpe: sbomComponents.cpe, licenses: sbomComponents.licenses, hashes: sbomComponents.hashes, supplier: sbomComponents.supplier,
          })
          .from(sbomComponents)
          .where(eq(sbomComponents.sbomId, previous.id))
          .orderBy(asc(sbomComponents.ordinal))
      : [];
    const diff = previous ? diffComponents(before, normal.components) : { added: normal.components, removed: [], changed: [] };
    const now = new Date();
    const row = {
      id: newId(),
      companyId,
      productId: product.id,
      version: (previous?.version ?? 0) + 1,
      format: read.format,
      specVersion: read.specVersion,
      serialNumber: normal.serialNumber,
      subjectName: normal.subject?.name ?? null,
      subjectVersion: normal.subject?.version ?? null,
      componentCount: normal.components.length,
      dependencyCount: normal.edges.length,
      previousId: previous?.id ?? null,
      added: diff.added.length,
      removed: diff.removed.length,
      changed: diff.changed.length,
      sha256: read.sha256,
      byteSize: bytes.length,
      createdAt: now,
    };
    await tx.insert(sboms).values(row);
    await tx.insert(sbomDocuments).values({ sbomId: row.id, companyId, encoding: 'gzip', content: document });
    await insertComponents(tx, row.id, companyId, normal.components, packages.map((p) => ('reason' in p ? null : p.packageKey)));
    await insertEdges(tx, row.id, companyId, normal.edges);
    if (previous) await tx.insert(sbomDiffs).values({ sbomId: row.id, companyId, diff: diff as SbomDiff });
    const { companyId: _c, productId: _p, ...rest } = row;
    const result: Sbom = { ...rest, productIdentifier: product.identifier, createdAt: now.toISOString() };
    const summary = {
      id: row.id, productIdentifier: product.identifier, version: row.version, format: row.format, specVersion: row.specVersion,
      componentCount: row.componentCount, added: row.added, removed: row.removed, changed: row.changed, sha256: row.sha256,
    };
    await recordAudit(tx, ctx, { companyId, action: 'sboms.push', targetType: 'sbom', targetId: row.id, details: summary, at: now });
    await enqueueEvent(tx, companyId, 'sbom.ingested', summary, now);
    // Known vulnerabilities follow the new version in the same transaction (issue 25).
    await matchSbom(tx, { companyId, productId: product.id, productIdentifier: product.identifier, sbomId: row.id, now }, normal.components, packages);
    return result;
  });
}
