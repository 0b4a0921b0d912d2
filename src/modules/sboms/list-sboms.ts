import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { products, sboms } from '../../db/schema/index.js';
import { parseInput } from '../../kernel/validate.js';
import { type Page, Paging } from '../../kernel/paging.js';
import { ListSbomsFilter, type Sbom } from './sboms.schemas.js';
import { selectSboms, toSbom } from './sboms.rows.js';
import { pendingSbomMatches } from '../known-vulns/sbom-match-jobs.js';

/** The company's SBOM versions, newest first, optionally for one product identifier. */
export async function listSboms(db: Executor, companyId: string, filter: ListSbomsFilter = {}, paging: Paging = {}): Promise<Page<Sbom>> {
  const f = parseInput(ListSbomsFilter, filter);
  const p = parseInput(Paging, paging);
  const where: SQL[] = [eq(sboms.companyId, companyId)];
  if (f.product !== undefined) where.push(eq(products.identifier, f.product));
  const rows = await selectSboms(db)
    .where(and(...where))
    .orderBy(desc(sboms.createdAt), desc(sboms.version), desc(sboms.id))
    .limit(p.limit + 1)
    .offset(p.offset);
  const more = rows.length > p.limit;
  const page = rows.slice(0, p.limit);
  const pending = await pendingSbomMatches(
    db,
    companyId,
    page.map((r) => r.id),
  );
  return { items: page.map((r) => toSbom(r, pending)), nextOffset: more ? p.offset + p.limit : null };
}
