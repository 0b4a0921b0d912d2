import type { Db } from '../../db/client.js';
import { reports } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { newId, randomHex, sha256Hex } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import type { Company } from '../companies/companies.schemas.js';
import { recordFirstReport } from '../companies/record-first-report.js';
import { enqueueTriage } from '../triage/enqueue-triage.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { type FiledReport, INITIAL_REPORT_STATUS, ReportFields, type ReportSource } from './reports.schemas.js';

export type FileReportResult = {
  report: FiledReport;
  /**
   * The researcher's status capability: shown once (the private status link), stored only as a
   * digest. 256 random bits, so the link is the credential.
   */
  statusToken: string;
};

/** Fields in the shape of the webhook payload and of every later read: absent fields are omitted. */
function reportView(row: typeof reports.$inferSelect): FiledReport {
  const optional = {
    productName: row.productName,
    vulnerabilityType: row.vulnerabilityType,
    stepsToReproduce: row.stepsToReproduce,
    impact: row.impact,
    contactEmail: row.contactEmail,
    pgpKey: row.pgpKey,
  };
  return {
    submissionId: row.id,
    createdAt: row.createdAt.toISOString(),
    status: row.status,
    source: row.source as ReportSource,
    description: row.description,
    ...(Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== null)) as Partial<ReportFields>),
  };
}

/**
 * Files already-validated report fields into `company` in one transaction with all side effects
 * (spec Rule 3): the report, the `vulnerability.reported` outbox event, the first-report milestone,
 * a triage job when the company has AI triage on, and the audit row. Any failure rolls back all.
 */
export async function fileValidatedReport(db: Db, ctx: Context, company: Company, fields: ReportFields, source: ReportSource): Promise<FileReportResult> {
  const statusToken = randomHex(32);
  return db.transaction(async (tx) => {
    const now = new Date();
    const [row] = await tx
      .insert(reports)
      .values({
        id: newId(),
        companyId: company.id,
        source,
        status: INITIAL_REPORT_STATUS,
        description: fields.description,
        productName: fields.productName ?? null,
        vulnerabilityType: fields.vulnerabilityType ?? null,
        stepsToReproduce: fields.stepsToReproduce ?? null,
        impact: fields.impact ?? null,
        contactEmail: fields.contactEmail ?? null,
        pgpKey: fields.pgpKey ?? null,
        statusTokenDigest: sha256Hex(statusToken),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    const report = reportView(row);
    await enqueueEvent(tx, company.id, 'vulnerability.reported', report, now);
    // The company object may be a moment old; the conditional update is what guarantees "once".
    const first = company.firstReportAt === null && (await recordFirstReport(tx, company.id, now));
    if (company.aiTriage) await enqueueTriage(tx, company.id, row.id, now);
    await recordAudit(tx, ctx, {
      companyId: company.id,
      action: 'reports.file',
      targetType: 'report',
      targetId: row.id,
      // No report text here: the audit log is exported and kept longer than a report may be.
      details: { source, firstReport: first, triageQueued: company.aiTriage },
      at: now,
    });
    return { report, statusToken };
  });
}

/** Validates raw input with the shared report schema, then files it (VALIDATION on bad input). */
export async function fileReport(db: Db, ctx: Context, company: Company, raw: unknown, source: ReportSource): Promise<FileReportResult> {
  return fileValidatedReport(db, ctx, company, parseInput(ReportFields, raw), source);
}
