import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { reports } from '../../db/schema/index.js';
import { isUuid } from '../../kernel/ids.js';
import { notFound } from '../../kernel/errors.js';

export type ReportRow = typeof reports.$inferSelect;

/** A report as the company's surfaces show it: every field, triage facts, never the status token digest. */
export type ReportView = {
  submissionId: string;
  createdAt: string;
  updatedAt: string;
  status: string;
  source: string;
  description: string;
  productName: string | null;
  vulnerabilityType: string | null;
  stepsToReproduce: string | null;
  impact: string | null;
  contactEmail: string | null;
  pgpKey: string | null;
  severity: string | null;
  cvssVector: string | null;
  cvssScore: number | null;
  cwe: string | null;
  duplicateOf: string | null;
  activelyExploited: boolean | null;
  exploitationEvidence: string | null;
  awareAt: string | null;
  severeIncident: boolean | null;
  fixAvailableAt: string | null;
  memberStates: string[];
};

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
    duplicateOf: r.duplicateOf,
    activelyExploited: r.activelyExploited,
    exploitationEvidence: r.exploitationEvidence,
    awareAt: r.awareAt?.toISOString() ?? null,
    severeIncident: r.severeIncident,
    fixAvailableAt: r.fixAvailableAt?.toISOString() ?? null,
    memberStates: r.memberStates,
  };
}


/** The company's report row; another company's id, or one that is not a UUID, is NOT_FOUND. */
export async function getReportRow(db: Executor, companyId: string, id: string, forUpdate = false): Promise<ReportRow> {
  if (!isUuid(id)) throw notFound('report');
  const q = db.select().from(reports).where(and(eq(reports.companyId, companyId), eq(reports.id, id)));
  const [row] = forUpdate ? await q.for('update') : await q;
  if (!row) throw notFound('report');
  return row;
}

export const getReport = async (db: Executor, companyId: string, id: string): Promise<ReportView> => toReportView(await getReportRow(db, companyId, id));
