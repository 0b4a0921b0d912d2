import { and, asc, desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { advisoryDocuments } from '../../db/schema/index.js';
import { conflict, notFound } from '../../kernel/errors.js';
import type { Company } from '../companies/companies.schemas.js';
import { getAdvisoryRow } from './advisory-rows.js';
import { csafPath } from './csaf-provider.js';
import { documentBytes, releaseFacts } from './release-advisory.js';
import { type DocumentKind, draftRevisions, renderCsaf } from './render-csaf.js';

/** A released document as the distribution lists it (no content). */
export type ReleasedDocument = {
  advisoryId: string;
  kind: DocumentKind;
  version: number;
  trackingId: string;
  path: string;
  sha256: string;
  sha512: string;
  initialReleaseDate: Date;
  currentReleaseDate: Date;
};

/** The newest version of every released document of one company (published and withdrawn advisories). */
export async function listReleasedDocuments(db: Executor, companyId: string): Promise<ReleasedDocument[]> {
  const rows = await db
    .selectDistinctOn([advisoryDocuments.advisoryId, advisoryDocuments.kind], {
      advisoryId: advisoryDocuments.advisoryId,
      kind: advisoryDocuments.kind,
      version: advisoryDocuments.version,
      trackingId: advisoryDocuments.trackingId,
      sha256: advisoryDocuments.sha256,
      sha512: advisoryDocuments.sha512,
      initialReleaseDate: advisoryDocuments.initialReleaseAt,
      currentReleaseDate: advisoryDocuments.currentReleaseAt,
    })
    .from(advisoryDocuments)
    .where(eq(advisoryDocuments.companyId, companyId))
    .orderBy(asc(advisoryDocuments.advisoryId), asc(advisoryDocuments.kind), desc(advisoryDocuments.version));
  return rows.map((r) => ({ ...r, path: csafPath(r) })).sort((a, b) => a.path.localeCompare(b.path));
}

/** Whether the company has released any document (its CSAF provider exists). */
export async function hasReleasedDocuments(db: Executor, companyId: string): Promise<boolean> {
  const [row] = await db.select({ kind: advisoryDocuments.kind }).from(advisoryDocuments).where(eq(advisoryDocuments.companyId, companyId)).limit(1);
  return row !== undefined;
}

/** The exact bytes of one released document version. */
export async function releasedContent(db: Executor, companyId: string, d: Pick<ReleasedDocument, 'advisoryId' | 'kind' | 'version'>): Promise<string> {
  const [row] = await db
    .select({ content: advisoryDocuments.content })
    .from(advisoryDocuments)
    .where(
      and(
        eq(advisoryDocuments.companyId, companyId),
        eq(advisoryDocuments.advisoryId, d.advisoryId),
        eq(advisoryDocuments.kind, d.kind),
        eq(advisoryDocuments.version, d.version),
      ),
    );
  if (!row) throw notFound('CSAF document');
  return row.content;
}

/**
 * An advisory's CSAF (or VEX) document for the company's API: the bytes last released, or for a
 * draft a preview of the working copy (tracking status `draft`, version 0) that is never served
 * publicly. A draft withdrawn before release has no document: CONFLICT.
 */
export async function advisoryDocument(
  db: Executor,
  company: Company,
  namespace: string,
  id: string,
  kind: DocumentKind,
): Promise<{ content: string; released: boolean }> {
  const row = await getAdvisoryRow(db, company.id, id);
  if (row.revisions.length === 0) {
    if (row.status === 'withdrawn') throw conflict('the advisory was withdrawn before it was published and has no document');
    const facts = await releaseFacts(db, row);
    return { content: documentBytes(renderCsaf(row, company, namespace, kind, draftRevisions(row), 'draft', facts)), released: false };
  }
  const [latest] = await db
    .select({ content: advisoryDocuments.content })
    .from(advisoryDocuments)
    .where(and(eq(advisoryDocuments.companyId, company.id), eq(advisoryDocuments.advisoryId, id), eq(advisoryDocuments.kind, kind)))
    .orderBy(desc(advisoryDocuments.version))
    .limit(1);
  if (!latest) throw notFound('CSAF document');
  return { content: latest.content, released: true };
}
