import { desc, eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { sbomDiffs, sbomDocuments, sboms } from '../../db/schema/index.js';
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
import type { PackageOf } from '../known-vulns/find-known-vulns.js';
import { matchSbom } from '../known-vulns/match-sbom.js';
import { MATCH_INLINE_MAX_COMPONENTS, queueSbomMatch } from '../known-vulns/sbom-match-jobs.js';
import { getProductByIdentifier } from '../products/get-product.js';
import { componentsOf } from './get-sbom-diff.js';
import { type DiffComponent, diffComponents, type SbomDiff } from './sboms.diff.js';
import type { NormalComponent, NormalSbom } from './sboms.normalised.js';
import type * as SbomsRead from './sboms.read.js';
import type { PushSbomOptions } from './sboms.read.js';
import type { Sbom } from './sboms.schemas.js';
import type { Product } from '../products/products.schemas.js';
import { publishStage, stageRows, unstage } from './sboms.stage.js';

/** Reading a pushed SBOM on the offload pool (listed in src/jobs/registry.ts). */
export const READ_SBOM_TASK = taskRef<typeof SbomsRead>()(import.meta.url, 'sboms.read', 'readSbomTask');

/** Reads the document on a worker (kernel/worker-pool.ts), in the company's turn; the rows come back in chunks. */
async function readOffThread(companyId: string, raw: string | Buffer, opts: PushSbomOptions) {
  const body = ownBytes(typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw);
  const packed = await offloadPool().run(companyId, READ_SBOM_TASK, { body, opts }, [body.buffer as ArrayBuffer]);
  const rows = await unpackChunks<[NormalComponent, PackageOf]>(packed.components);
  const normal: NormalSbom = {
    serialNumber: packed.serialNumber,
    subject: packed.subject,
    components: rows.map((r) => r[0]),
    edges: await unpackChunks<[string, string]>(packed.edges),
  };
  return {
    ...packed,
    normal,
    packages: rows.map((r) => r[1]),
    document: Buffer.from(packed.document.buffer, packed.document.byteOffset, packed.document.byteLength),
  };
}

type Read = Awaited<ReturnType<typeof readOffThread>>;

/**
 * Pushes an SBOM for one of the company's products: validates it against the official schema,
 * stores the original (gzip) and the normalised components and graph as a new version, and
 * diffs it against the previous version. The components and graph are written first, in
 * statements of their own (sboms.stage.ts), then one transaction stores the version with its audit
 * row and outbox event: a refused or failed push leaves nothing behind. The document is read on a worker thread, one at
 * a time per company: `raw`, when a Buffer owning its memory, is handed over (left empty).
 * Known vulnerabilities are matched in the same transaction for SBOMs of up to `matchInlineUpTo`
 * components (MATCH_INLINE_MAX_COMPONENTS); a larger one's match is queued in it and runs after
 * the answer (`matching: "pending"`, then `sbom.matched`; docs/evidence.md "Matching after the answer").
 */
export async function pushSbom(
  db: Db,
  ctx: Context,
  companyId: string,
  productIdentifier: string,
  raw: string | Buffer,
  opts: PushSbomOptions & { matchInlineUpTo?: number } = {},
): Promise<Sbom> {
  const product = await getProductByIdentifier(db, companyId, productIdentifier);
  if (product.archivedAt) throw conflict(`product "${product.identifier}" is archived: restore it before adding evidence`);
  const { matchInlineUpTo = MATCH_INLINE_MAX_COMPONENTS, ...limits } = opts;
  const read = await readOffThread(companyId, raw, limits);
  const { normal, packages } = read;
  const staged = { sbomId: newId(), companyId };
  await stageRows(
    db,
    staged,
    normal,
    packages.map((p) => ('reason' in p ? null : p.packageKey)),
    new Date(),
  );
  // The diff against the version that is latest now, outside the transaction too (a read of as
  // many rows as that version has); redone inside only if another push stored a version meanwhile.
  const guess = await diffAgainstLatest(db, companyId, product.id, normal.components);

  return db
    .transaction(async (tx) => {
      await lockFor(tx, 'sbom', product.id);
      const { previous, diff } = await diffAgainstLatest(tx, companyId, product.id, normal.components, guess);
      return storeVersion(tx, ctx, { companyId, product, read, previous, diff, sbomId: staged.sbomId, matchInlineUpTo });
    })
    .catch(async (e: unknown) => {
      await unstage(db, staged).catch(() => undefined);
      throw e;
    });
}

type Latest = { previous: { id: string; version: number } | undefined; diff: SbomDiff };

/** The product's latest version and the diff of `components` against it; `known` is reused while that version is still the latest. */
async function diffAgainstLatest(ex: Executor, companyId: string, productId: string, components: NormalComponent[], known?: Latest): Promise<Latest> {
  const [previous] = await ex
    .select({ id: sboms.id, version: sboms.version })
    .from(sboms)
    .where(eq(sboms.productId, productId))
    .orderBy(desc(sboms.version))
    .limit(1);
  if (known && known.previous?.id === previous?.id) return known;
  if (!previous) return { previous, diff: { added: components, removed: [], changed: [] } as SbomDiff };
  const before: DiffComponent[] = await componentsOf(ex, companyId, previous.id);
  return { previous, diff: diffComponents(before, components) };
}

/**
 * The push's transaction, its components and graph already staged: the version row, the original
 * document, the diff, the audit row and the event, and the known-vulnerability match or its job.
 */
async function storeVersion(
  tx: Executor,
  ctx: Context,
  o: { companyId: string; product: Product; read: Read; previous: Latest['previous']; diff: SbomDiff; sbomId: string; matchInlineUpTo: number },
): Promise<Sbom> {
  const { product, read, previous, diff, matchInlineUpTo } = o;
  const { normal, packages, document } = read;
  const { companyId } = o;
  const now = new Date();
  const row = {
    id: o.sbomId,
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
    byteSize: read.byteSize,
    createdAt: now,
  };
  await tx.insert(sboms).values(row);
  await tx.insert(sbomDocuments).values({ sbomId: row.id, companyId, encoding: 'gzip', content: document });
  await publishStage(tx, row.id);
  if (previous) await tx.insert(sbomDiffs).values({ sbomId: row.id, companyId, diff: diff as SbomDiff });
  const deferred = normal.components.length > matchInlineUpTo;
  const { companyId: _c, productId: _p, ...rest } = row;
  const result: Sbom = { ...rest, productIdentifier: product.identifier, createdAt: now.toISOString(), matching: deferred ? 'pending' : 'done' };
  const summary = {
    id: row.id,
    productIdentifier: product.identifier,
    version: row.version,
    format: row.format,
    specVersion: row.specVersion,
    componentCount: row.componentCount,
    added: row.added,
    removed: row.removed,
    changed: row.changed,
    sha256: row.sha256,
    matching: result.matching,
  };
  await recordAudit(tx, ctx, { companyId, action: 'sboms.push', targetType: 'sbom', targetId: row.id, details: summary, at: now });
  await enqueueEvent(tx, companyId, 'sbom.ingested', summary, now);
  // Known vulnerabilities follow the new version (issue 25): in this transaction, or queued in it (issue 33).
  if (deferred) await queueSbomMatch(tx, row.id, companyId, now);
  else await matchSbom(tx, { companyId, productId: product.id, productIdentifier: product.identifier, sbomId: row.id, now }, normal.components, packages);
  return result;
}
