import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { reports } from '../../db/schema/index.js';
import { notFound } from '../../kernel/errors.js';
import { sha256Hex } from '../../kernel/ids.js';

export type ReportStatusView = {
  submissionId: string;
  createdAt: string;
  updatedAt: string;
  status: string;
  productName: string | null;
  vulnerabilityType: string | null;
};

const TOKEN = /^[0-9a-f]{64}$/;

/**
 * What the holder of a status capability may see: the report's identity, timing and status, not
 * its text (a leaked link must not leak the vulnerability). Scoped to the portal's company, so a
 * token only works on the portal it was issued by. Unknown or malformed token: NOT_FOUND.
 */
export async function getReportStatus(db: Executor, companyId: string, token: string): Promise<ReportStatusView> {
  if (!TOKEN.test(token)) throw notFound('report');
  const [row] = await db
    .select({
      id: reports.id,
      createdAt: reports.createdAt,
      updatedAt: reports.updatedAt,
      status: reports.status,
      productName: reports.productName,
      vulnerabilityType: reports.vulnerabilityType,
    })
    .from(reports)
    .where(and(eq(reports.companyId, companyId), eq(reports.statusTokenDigest, sha256Hex(token))))
    .limit(1);
  if (!row) throw notFound('report');
  return {
    submissionId: row.id,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    status: row.status,
    productName: row.productName,
    vulnerabilityType: row.vulnerabilityType,
  };
}
