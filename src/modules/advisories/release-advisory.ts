import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { type AdvisoryRevision, advisories, advisoryDocuments } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, conflict, ErrorCode, type FieldIssue } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import type { Company } from '../companies/companies.schemas.js';
import { getReportRow } from '../reports/get-report.js';
import { applyReportUpdate } from '../reports/update-report.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { type AdvisoryView, ReviseAdvisoryInput, WithdrawAdvisoryInput } from './advisories.schemas.js';
import { type AdvisoryRow, getAdvisoryRow, releasedPath, toAdvisoryView } from './advisory-rows.js';
import { csafPath } from './csaf-provider.js';
import { assertValidCsaf } from './csaf-schema.js';
import { identifyProducts } from './product-identifiers.js';
import { caseInvolvements } from './case-involvements.js';
import type { Involvement } from './csaf.js';
import { type DocumentKind, renderCsaf, trackingIdOf } from './render-csaf.js';

/** Where the advisory's documents are published: the portal and its CSAF distribution folder. */
export type AdvisoryTarget = { company: Company; namespace: string; distributionUrl: string };

/** The bytes served for a document: stored once, so their hashes never change. */
export const documentBytes = (doc: unknown): string => `${JSON.stringify(doc, null, 2)}\n`;

/** What CSAF test 6.1.31 takes for a version range inside a `product_version` name. */
const VERSION_RANGE = /[<>]|(^|\s)(after|all|before|earlier|later|prior|versions)(\s|$)/i;
const CVE_ID = /^CVE-[0-9]{4}-[0-9]{4,}$/;

/**
 * What CSAF asks beyond the schema and user input could break, checked before anything is released:
 * the profiles' tests 6.1.27.x, the CWE name (6.1.11), single versions (6.1.31), CVEs in `cve` (6.2.17).
 */
function releaseIssues(row: AdvisoryRow): FieldIssue[] {
  const issues: FieldIssue[] = [];
  if (row.products.length === 0) issues.push({ path: 'products', message: 'list at least one product version and its status' });
  const affected = row.products.some((p) => p.status === 'known_affected' || p.status === 'fixed');
  if (row.products.length > 0 && !affected)
    issues.push({ path: 'products', message: 'a security advisory needs at least one known_affected or fixed product version' });
  if (affected && !row.remediation) issues.push({ path: 'remediation', message: 'affected and fixed products need a remediation (CSAF action statement)' });
  if (row.cwe && !row.cweName) issues.push({ path: 'cweName', message: `give the name MITRE publishes for ${row.cwe} (CSAF test 6.1.11 checks it)` });
  row.products.forEach((p, i) => {
    if (VERSION_RANGE.test(p.version))
      issues.push({ path: `products.${i}.version`, message: 'name one version, not a range: list each affected version (CSAF test 6.1.31)' });
  });
  row.ids.forEach((id, i) => {
    if (CVE_ID.test(id.text)) issues.push({ path: `ids.${i}.text`, message: 'a CVE id belongs in `cve`, not in `ids` (CSAF test 6.2.17)' });
  });
  return issues;
}

const INITIAL_RELEASE = 'Initial public release';

/** What a release reads beside the advisory: its products' identifiers and the report's case involvements. */
type ReleaseFacts = { identification: Awaited<ReturnType<typeof identifyProducts>>; involvements: Involvement[] };

export async function releaseFacts(db: Executor, row: AdvisoryRow): Promise<ReleaseFacts> {
  const [identification, involvements] = await Promise.all([
    identifyProducts(db, row.companyId, row.products),
    caseInvolvements(db, row.companyId, row.reportId),
  ]);
  return { identification, involvements };
}

/** One document of a release as it will be served, with its canonical URL as the `self` reference. */
function releaseDocument(
  row: AdvisoryRow,
  t: AdvisoryTarget,
  kind: DocumentKind,
  revisions: AdvisoryRevision[],
  initial: Date,
  facts: ReleaseFacts,
): { trackingId: string; selfUrl: string; doc: Record<string, unknown> } {
  const trackingId = trackingIdOf(row.trackingId, kind);
  // The canonical URL: where the portal serves this document (it never moves: the year folder
  // is the year of the initial release).
  const selfUrl = `${t.distributionUrl}/${csafPath({ trackingId, initialReleaseDate: initial })}`;
  return { trackingId, selfUrl, doc: renderCsaf(row, t.company, t.namespace, kind, revisions, 'final', { selfUrl, ...facts }) };
}

/** What publishing a draft now would release: the advisory as served, and what still blocks it. */
export type PublishPreview = {
  /** The CSAF advisory exactly as publishing now would render it (dated now, version 1). */
  doc: Record<string, unknown>;
  content: string;
  selfUrl: string;
  /** What the release checks refuse (empty when it may be published). */
  issues: FieldIssue[];
  /** The working copy's last change: a publish confirming this preview names it (`previewedAt`). */
  previewedAt: string;
};

/** The release a draft's publish would make now, rendered but not stored. Not a draft: CONFLICT. */
export async function previewPublish(db: Executor, t: AdvisoryTarget, id: string): Promise<PublishPreview> {
  const row = await getAdvisoryRow(db, t.company.id, id);
  if (row.status !== 'draft') throw conflict(`the advisory is ${row.status}; only a draft is published`);
  const now = new Date();
  const staged = { ...row, status: 'published' as const };
  const facts = await releaseFacts(db, row);
  const { doc, selfUrl } = releaseDocument(staged, t, 'csaf', [{ number: '1', date: now.toISOString(), summary: INITIAL_RELEASE }], now, facts);
  return { doc, content: documentBytes(doc), selfUrl, issues: releaseIssues(row), previewedAt: row.updatedAt.toISOString() };
}

/** Renders, validates and stores both documents of one release, then updates the row. */
async function release(
  tx: Executor,
  ctx: Context,
  t: AdvisoryTarget,
  row: AdvisoryRow,
  next: { status: AdvisoryRow['status']; summary: string; action: string },
): Promise<AdvisoryRow> {
  const issues = releaseIssues(row);
  if (issues.length)
    throw new AppError(ErrorCode.UNPROCESSABLE, `the advisory cannot be released yet: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
  const now = new Date();
  const revisions: AdvisoryRevision[] = [...row.revisions, { number: String(row.revisions.length + 1), date: now.toISOString(), summary: next.summary }];
  const initial = row.initialReleaseAt ?? now;
  const staged = { ...row, status: next.status };
  const facts = await releaseFacts(tx, row);
  for (const kind of ['csaf', 'vex'] as DocumentKind[]) {
    const { trackingId, doc } = releaseDocument(staged, t, kind, revisions, initial, facts);
    assertValidCsaf(doc, kind === 'vex' ? 'VEX document' : 'CSAF advisory');
    const content = documentBytes(doc);
    await tx.insert(advisoryDocuments).values({
      advisoryId: row.id,
      companyId: row.companyId,
      kind,
      version: revisions.length,
      trackingId,
      content,
      sha256: createHash('sha256').update(content, 'utf8').digest('hex'),
      sha512: createHash('sha512').update(content, 'utf8').digest('hex'),
      initialReleaseAt: initial,
      currentReleaseAt: now,
      createdAt: now,
    });
  }
  // The row's updatedAt equals the release instant: `pendingChanges` is "edited after this".
  const [updated] = await tx
    .update(advisories)
    .set({
      status: next.status,
      revisions,
      initialReleaseAt: initial,
      currentReleaseAt: now,
      updatedAt: now,
      ...(next.status === 'withdrawn' ? { withdrawnAt: now } : {}),
    })
    .where(and(eq(advisories.companyId, row.companyId), eq(advisories.id, row.id)))
    .returning();
  if (!updated) throw new Error('update returned no row');
  await recordAudit(tx, ctx, {
    companyId: row.companyId,
    action: next.action,
    targetType: 'advisory',
    targetId: row.id,
    details: { trackingId: row.trackingId, version: String(revisions.length), summary: next.summary },
    at: now,
  });
  // Each released revision is announced: a publication or revision, or the last revision of a withdrawal.
  const data = {
    advisoryId: row.id,
    trackingId: row.trackingId,
    vulnerabilityId: row.reportId,
    version: String(revisions.length),
    url: `${t.distributionUrl}/${releasedPath(updated) ?? ''}`,
  };
  await enqueueEvent(tx, row.companyId, next.status === 'withdrawn' ? 'advisory.withdrawn' : 'advisory.published', data, now);
  return updated;
}

/**
 * Publishes a draft as revision 1: both documents (advisory and VEX) must pass the official CSAF
 * 2.0 schema, else UNPROCESSABLE (422) and nothing changes. Not a draft: CONFLICT. A report still
 * `fixed` moves to `disclosed` in the same transaction. `previewedAt` (the dashboard's publish,
 * which follows a preview): the working copy must be the one previewed, else CONFLICT.
 */
export async function publishAdvisory(db: Db, ctx: Context, t: AdvisoryTarget, id: string, o: { previewedAt?: string } = {}): Promise<AdvisoryView> {
  return db.transaction(async (tx) => {
    const row = await getAdvisoryRow(tx, t.company.id, id, true);
    if (row.status !== 'draft') throw conflict(`the advisory is ${row.status}; only a draft can be published (revise a published one)`);
    if (o.previewedAt !== undefined && o.previewedAt !== row.updatedAt.toISOString())
      throw conflict('the advisory changed after this preview; look at the preview again before publishing');
    const released = await release(tx, ctx, t, row, { status: 'published', summary: INITIAL_RELEASE, action: 'advisories.publish' });
    // Published means disclosed: a fixed report moves on in the same transaction (history, audit, event).
    const report = await getReportRow(tx, t.company.id, row.reportId, true);
    if (report.status === 'fixed') await applyReportUpdate(tx, ctx, t.company.id, row.reportId, { status: 'disclosed' });
    return toAdvisoryView(released, t.distributionUrl);
  });
}

/** Releases the working copy of a published advisory as the next revision (version + 1). */
export async function reviseAdvisory(db: Db, ctx: Context, t: AdvisoryTarget, id: string, raw: unknown): Promise<AdvisoryView> {
  const input = parseInput(ReviseAdvisoryInput, raw);
  return db.transaction(async (tx) => {
    const row = await getAdvisoryRow(tx, t.company.id, id, true);
    if (row.status !== 'published') throw conflict(`the advisory is ${row.status}; only a published advisory can be revised`);
    return toAdvisoryView(await release(tx, ctx, t, row, { status: 'published', summary: input.summary, action: 'advisories.revise' }), t.distributionUrl);
  });
}

/**
 * Withdraws an advisory. A published one gets a last revision saying why, and stays in the
 * distribution (CSAF 2.0 has no deletion: mirrors and aggregators learn of the withdrawal from
 * changes.csv). A draft, never public, is simply closed.
 */
export async function withdrawAdvisory(db: Db, ctx: Context, t: AdvisoryTarget, id: string, raw: unknown): Promise<AdvisoryView> {
  const input = parseInput(WithdrawAdvisoryInput, raw);
  return db.transaction(async (tx) => {
    const row = await getAdvisoryRow(tx, t.company.id, id, true);
    if (row.status === 'withdrawn') throw conflict('the advisory is already withdrawn');
    if (row.status === 'published') {
      return toAdvisoryView(
        await release(tx, ctx, t, row, { status: 'withdrawn', summary: `Withdrawn: ${input.reason}`, action: 'advisories.withdraw' }),
        t.distributionUrl,
      );
    }
    const now = new Date();
    const [updated] = await tx
      .update(advisories)
      .set({ status: 'withdrawn', withdrawnAt: now, updatedAt: now })
      .where(and(eq(advisories.companyId, row.companyId), eq(advisories.id, id)))
      .returning();
    if (!updated) throw new Error('update returned no row');
    await recordAudit(tx, ctx, {
      companyId: row.companyId,
      action: 'advisories.withdraw',
      targetType: 'advisory',
      targetId: id,
      details: { trackingId: row.trackingId, reason: input.reason, wasDraft: true },
      at: now,
    });
    return toAdvisoryView(updated, t.distributionUrl);
  });
}
