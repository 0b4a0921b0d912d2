import { and, asc, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { findings, products } from '../../db/schema/index.js';
import { parseInput } from '../../kernel/validate.js';
import { type Page, Paging } from '../../kernel/paging.js';
import { type Finding, ListFindingsFilter } from './findings.schemas.js';

const severityRank = sql`case ${findings.severity} when 'critical' then 0 when 'high' then 1 when 'medium' then 2 when 'low' then 3 else 4 end`;

/** The company's findings, most severe first, filtered by product identifier, state, severity, tool. */
export async function listFindings(db: Executor, companyId: string, filter: ListFindingsFilter = {}, paging: Paging = {}): Promise<Page<Finding>> {
  const f = parseInput(ListFindingsFilter, filter);
  const p = parseInput(Paging, paging);
  const where: SQL[] = [eq(findings.companyId, companyId)];
  if (f.product !== undefined) where.push(eq(products.identifier, f.product));
  if (f.state !== undefined) where.push(eq(findings.state, f.state));
  if (f.severity !== undefined) where.push(eq(findings.severity, f.severity));
  if (f.tool !== undefined) where.push(eq(findings.tool, f.tool));
  const rows = await db
    .select({
      id: findings.id,
      productIdentifier: products.identifier,
      tool: findings.tool,
      ruleId: findings.ruleId,
      fingerprint: findings.fingerprint,
      state: findings.state,
      severity: findings.severity,
      level: findings.level,
      securitySeverity: findings.securitySeverity,
      message: findings.message,
      artifactUri: findings.artifactUri,
      startLine: findings.startLine,
      firstSeenScanId: findings.firstSeenScanId,
      firstSeenAt: findings.firstSeenAt,
      fixedScanId: findings.fixedScanId,
      fixedAt: findings.fixedAt,
      reopenCount: findings.reopenCount,
      updatedAt: findings.updatedAt,
    })
    .from(findings)
    .innerJoin(products, eq(products.id, findings.productId))
    .where(and(...where))
    .orderBy(severityRank, desc(findings.firstSeenAt), asc(findings.id))
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
