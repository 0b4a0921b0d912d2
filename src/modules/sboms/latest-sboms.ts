import { desc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { products, sboms } from '../../db/schema/index.js';
import type { Sbom } from './sboms.schemas.js';
import { sbomColumns, toSbom } from './sboms.rows.js';
import { pendingSbomMatches } from '../known-vulns/sbom-match-jobs.js';

/** The newest SBOM of each of the company's products, by product identifier (one query). */
export async function latestSboms(db: Executor, companyId: string): Promise<Map<string, Sbom>> {
  const rows = await db
    .selectDistinctOn([sboms.productId], sbomColumns)
    .from(sboms)
    .innerJoin(products, eq(products.id, sboms.productId))
    .where(eq(sboms.companyId, companyId))
    .orderBy(sboms.productId, desc(sboms.version));
  const pending = await pendingSbomMatches(
    db,
    companyId,
    rows.map((r) => r.id),
  );
  return new Map(rows.map((r) => [r.productIdentifier, toSbom(r, pending)]));
}
