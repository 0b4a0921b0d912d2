import { and, count, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { products, publishedFindings } from '../../db/schema/index.js';
import type { Severity } from './findings.severity.js';

export type OpenFindingCounts = Partial<Record<Severity, number>>;

/** Open findings per product identifier and severity (products without any are absent). */
export async function countOpenFindings(db: Executor, companyId: string): Promise<Map<string, OpenFindingCounts>> {
  const rows = await db
    .select({ product: products.identifier, severity: publishedFindings.severity, n: count() })
    .from(publishedFindings)
    .innerJoin(products, eq(products.id, publishedFindings.productId))
    .where(and(eq(publishedFindings.companyId, companyId), eq(publishedFindings.state, 'open')))
    .groupBy(products.identifier, publishedFindings.severity);
  const out = new Map<string, OpenFindingCounts>();
  for (const r of rows) out.set(r.product, { ...out.get(r.product), [r.severity]: r.n });
  return out;
}
