import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { sbomDocuments, sboms } from '../../db/schema/index.js';
import { notFound } from '../../kernel/errors.js';
import { SBOM_MEDIA_TYPES } from './sboms.detect.js';
import type { Sbom } from './sboms.schemas.js';
import { isUuid, selectSboms, toSbom } from './sboms.rows.js';
import { pendingSbomMatches } from '../known-vulns/sbom-match-jobs.js';

/** One SBOM's metadata; another company's id, or no id at all, is NOT_FOUND. */
export async function getSbom(db: Executor, companyId: string, id: string): Promise<Sbom> {
  if (!isUuid(id)) throw notFound('sbom');
  const [row] = await selectSboms(db)
    .where(and(eq(sboms.companyId, companyId), eq(sboms.id, id)))
    .limit(1);
  if (!row) throw notFound('sbom');
  return toSbom(row, await pendingSbomMatches(db, companyId, [row.id]));
}

export type SbomDocument = {
  /** The format's own media type; a download should still send `Content-Disposition: attachment`. */
  mediaType: string;
  /** A safe file name: product identifier reduced to [A-Za-z0-9._-], version, format extension. */
  filename: string;
  sha256: string;
  byteSize: number;
  /** The original bytes, gzip-compressed: send with `Content-Encoding: gzip`, or gunzip first. */
  encoding: 'gzip';
  body: Buffer;
};

/** The original document exactly as pushed (its SHA-256 is that of the pushed bytes). */
export async function getSbomDocument(db: Executor, companyId: string, id: string): Promise<SbomDocument> {
  const sbom = await getSbom(db, companyId, id);
  const [doc] = await db
    .select({ content: sbomDocuments.content, encoding: sbomDocuments.encoding })
    .from(sbomDocuments)
    .where(and(eq(sbomDocuments.companyId, companyId), eq(sbomDocuments.sbomId, id)));
  if (!doc) throw notFound('sbom document');
  const safe = sbom.productIdentifier.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'product';
  return {
    mediaType: SBOM_MEDIA_TYPES[sbom.format],
    filename: `${safe}-sbom-v${sbom.version}.${sbom.format === 'cyclonedx' ? 'cdx' : 'spdx'}.json`,
    sha256: sbom.sha256,
    byteSize: sbom.byteSize,
    encoding: doc.encoding,
    body: doc.content,
  };
}
