import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { products, sboms } from '../../db/schema/index.js';
import type { Sbom } from './sboms.schemas.js';

/** The metadata columns (never the document) joined with the product identifier. */
export const sbomColumns = {
  id: sboms.id,
  productIdentifier: products.identifier,
  version: sboms.version,
  format: sboms.format,
  specVersion: sboms.specVersion,
  serialNumber: sboms.serialNumber,
  subjectName: sboms.subjectName,
  subjectVersion: sboms.subjectVersion,
  componentCount: sboms.componentCount,
  dependencyCount: sboms.dependencyCount,
  previousId: sboms.previousId,
  added: sboms.added,
  removed: sboms.removed,
  changed: sboms.changed,
  sha256: sboms.sha256,
  byteSize: sboms.byteSize,
  createdAt: sboms.createdAt,
};

export const selectSboms = (db: Executor) => db.select(sbomColumns).from(sboms).innerJoin(products, eq(products.id, sboms.productId));

export type SbomRow = Omit<Sbom, 'createdAt' | 'matching'> & { createdAt: Date };
export const toSbom = (r: SbomRow, pending: ReadonlySet<string>): Sbom => ({
  ...r,
  createdAt: r.createdAt.toISOString(),
  matching: pending.has(r.id) ? 'pending' : 'done',
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids arrive from URLs: anything that is not a UUID is simply not found (no database error). */
export const isUuid = (s: string): boolean => UUID.test(s);
