import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { products, publishedFindings } from '../../db/schema/index.js';
import { parseInput } from '../../kernel/validate.js';
import { type Page, Paging } from '../../kernel/paging.js';
import { type Finding, ListFindingsFilter } from './findings.schemas.js';

const severityRank = sql`case ${publishedFindings.severity} when 'critical' then 0 when 'high' then 1 when 'medium' then 2 when 'low' then 3 else 4 end`;

/** The company's findings, most severe first, filtered by product identifier, state, severity, tool. */
export async function listFindings(db: Executor, companyId: string, filter: ListFindingsFilter = {}, paging: Paging = {}): Promise<Page<Finding>> {
  const f = parseInput(ListFindingsFilter, filter);
  const p = parseInput(Paging, paging);
  const where: SQL[] = [eq(publishedFindings.companyId, companyId)];
  if (f.product !== undefined) where.push(eq(products.identifier, f.product));
  if (f.state !== undefined) where.push(eq(publishedFindings.state, f.state));
  if (f.severity !== undefined) where.push(eq(publishedFindings.severity, f.severity));
  if (f.tool !== undefined) where.push(eq(publishedFindings.tool, f.tool));
  const rows = await db
    .select({
      id: publishedFindings.id,
      productIdentifier: products.identifier,
      tool: publishedFindings.tool,
      ruleId: publishedFindings.ruleId,
      fingerprint: publishedFindings.fingerprint,
      state: publishedFindings.state,
      severity: publishedFindings.severity,
      level: publishedFindings.level,
      securitySeverity: publishedFindings.securitySeverity,
      message: publishedFindings.message,
      artifactUri: publishedFindings.artifactUri,
      startLine: publishedFindings.startLine,
      firstSeenScanId: publishedFindings.firstSeenScanId,
      firstSeenAt: publishedFindings.firstSeenAt,
      fixedScanId: publishedFindings.fixedScanId,
      fixedAt: publishedFindings.fixedAt,
      reopenCount: publishedFindings.reopenCount,
      updatedAt: publishedFindings.updatedAt,
    })
    .from(publishedFindings)
    .innerJoin(products, eq(products.id, publishedFindings.productId))
    .where(and(...where))
    .orderBy(severityRank, desc(publishedFindings.firstSeenAt), asc(publishedFindings.id))
    .limit(p.limit + 1)
    .offset(p.offset);
  const items = rows.slice(0, p.limit).map((r) => ({
    ...r,
    firstSeenAt: r.firstSeenAt.toISOString(),
    fixedAt: r.fixedAt?.toISOString() ?? null,
    updatedAt: r.updatedAt.toISOString(),
  }));
  return { items, nextOffset: rows.length > p.limit ? p.offset + p.limit : null };
}
