import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { reports } from '../../db/schema/index.js';
import { isUuid } from '../../kernel/ids.js';
import { notFound } from '../../kernel/errors.js';
import type { Report } from './reports.schemas.js';

export type ReportRow = typeof reports.$inferSelect;

/** A report as the company's surfaces show it (the `Report` schema). */
export type ReportView = Report;

export function toReportView(r: ReportRow): ReportView {
  return {
    submissionId: r.id,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    status: r.status,
    source: r.source,
    description: r.description,
    productName: r.productName,
    vulnerabilityType: r.vulnerabilityType,
    stepsToReproduce: r.stepsToReproduce,
    impact: r.impact,
    contactEmail: r.contactEmail,
    pgpKey: r.pgpKey,
    severity: r.severity,
    cvssVector: r.cvssVector,
    cvssScore: r.cvssScore,
    cwe: r.cwe,
    componentPurl: r.componentPurl,
    duplicateOf: r.duplicateOf,
    activelyExploited: r.activelyExploited,
    exploitationEvidence: r.exploitationEvidence,
    awareAt: r.awareAt?.toISOString() ?? null,
    severeIncident: r.severeIncident,
    fixAvailableAt: r.fixAvailableAt?.toISOString() ?? null,
    memberStates: r.memberStates,
    assigneeId: r.assigneeId,
  };
}

/** The company's report row; another company's id, or one that is not a UUID, is NOT_FOUND. */
export async function getReportRow(db: Executor, companyId: string, id: string, forUpdate = false): Promise<ReportRow> {
  if (!isUuid(id)) throw notFound('report');
  const q = db
    .select()
    .from(reports)
    .where(and(eq(reports.companyId, companyId), eq(reports.id, id)));
  const [row] = forUpdate ? await q.for('update') : await q;
  if (!row) throw notFound('report');
  return row;
}

export const getReport = async (db: Executor, companyId: string, id: string): Promise<ReportView> => toReportView(await getReportRow(db, companyId, id));
