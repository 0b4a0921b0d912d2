import { and, asc, eq, gte, lt } from 'drizzle-orm';
import { readPaged } from '../../kernel/evidence-store.js';
import type { Executor } from '../../db/client.js';
import { sbomComponents, sbomDiffs } from '../../db/schema/index.js';
import { getSbom } from './get-sbom.js';
import { type DiffComponent, diffComponents, type SbomDiff } from './sboms.diff.js';

/** An SBOM's components as the diff compares them, in document order (read in pages: `readPaged`). */
export async function componentsOf(db: Executor, companyId: string, sbomId: string): Promise<DiffComponent[]> {
  return readPaged((from, to) =>
    db
      .select({
        group: sbomComponents.group,
        name: sbomComponents.name,
        version: sbomComponents.version,
        purl: sbomComponents.purl,
        cpe: sbomComponents.cpe,
        licenses: sbomComponents.licenses,
        hashes: sbomComponents.hashes,
        supplier: sbomComponents.supplier,
      })
      .from(sbomComponents)
      .where(and(eq(sbomComponents.companyId, companyId), eq(sbomComponents.sbomId, sbomId), gte(sbomComponents.ordinal, from), lt(sbomComponents.ordinal, to)))
      .orderBy(asc(sbomComponents.ordinal)),
  );
}

/**
 * The component-level difference between an SBOM and the version before it, as stored by the push
 * (SBOMs pushed before diffs were stored are diffed here, by the same function). The first version
 * is all additions.
 */
export async function getSbomDiff(db: Executor, companyId: string, sbomId: string): Promise<SbomDiff & { previousId: string | null }> {
  const sbom = await getSbom(db, companyId, sbomId);
  if (sbom.previousId) {
    const [stored] = await db
      .select({ diff: sbomDiffs.diff })
      .from(sbomDiffs)
      .where(and(eq(sbomDiffs.companyId, companyId), eq(sbomDiffs.sbomId, sbomId)));
    if (stored) return { previousId: sbom.previousId, ...(stored.diff as SbomDiff) };
  }
  const after = await componentsOf(db, companyId, sbomId);
  const before = sbom.previousId ? await componentsOf(db, companyId, sbom.previousId) : [];
  return { previousId: sbom.previousId, ...diffComponents(before, after) };
}
