import { and, asc, eq, getTableColumns, gte } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { sbomComponents } from '../../db/schema/index.js';
import { parseInput } from '../../kernel/validate.js';
import { getSbom } from './get-sbom.js';
import { type Page, Paging } from '../../kernel/paging.js';
import type { SbomComponent } from './sboms.schemas.js';

/**
 * One SBOM's components in document order. Ordinals are dense (0..n-1), so the offset is a key
 * range on the primary key, not a scan: page 1,000 costs what page 1 costs.
 */
export async function listSbomComponents(db: Executor, companyId: string, sbomId: string, paging: Paging = {}): Promise<Page<SbomComponent>> {
  const p = parseInput(Paging, paging);
  await getSbom(db, companyId, sbomId);
  // The package key is the known-vulnerability matcher's own index (docs/known-vulnerabilities.md), not a component field.
  const { sbomId: _s, companyId: _c, packageKey: _k, ...cols } = getTableColumns(sbomComponents);
  const rows = await db
    .select(cols)
    .from(sbomComponents)
    .where(and(eq(sbomComponents.companyId, companyId), eq(sbomComponents.sbomId, sbomId), gte(sbomComponents.ordinal, p.offset)))
    .orderBy(asc(sbomComponents.ordinal))
    .limit(p.limit + 1);
  const more = rows.length > p.limit;
  return { items: rows.slice(0, p.limit), nextOffset: more ? p.offset + p.limit : null };
}
