import { sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import type { Context } from '../../kernel/context.js';
import { newId, randomHex, sha256Hex } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { auditInsertSql } from '../audit/audit-insert-sql.js';
import type { Company } from '../companies/companies.schemas.js';
import { firstReportUpdateSql } from '../companies/record-first-report.js';
import { triageInsertSql } from '../triage/enqueue-triage.js';
import { eventInsertSql } from '../webhooks/enqueue-event.js';
import { type FiledReport, INITIAL_REPORT_STATUS, ReportFields, type ReportSource } from './reports.schemas.js';

export type FileReportResult = {
  report: FiledReport;
  /**
   * The researcher's status capability: shown once (the private status link), stored only as a
   * digest. 256 random bits, so the link is the credential.
   */
  statusToken: string;
};

/** The report as every reader sees it (webhook payload, later REST/MCP): absent fields omitted. */
function reportView(id: string, at: Date, source: ReportSource, fields: ReportFields): FiledReport {
  const given = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as ReportFields;
  return { submissionId: id, createdAt: at.toISOString(), status: INITIAL_REPORT_STATUS, source, ...given };
}

/**
 * Files already-validated report fields into `company` with all side effects of spec Rule 3: the
 * report, the `vulnerability.reported` outbox event, the first-report milestone (and its audit
 * row), a triage job when the company has AI triage on, and the report's audit row.
 *
 * All of it is ONE statement of data-modifying CTEs, which PostgreSQL runs atomically: a failure
 * anywhere stores nothing. One statement instead of a seven-statement transaction is what keeps
 * filing near the cost of a bare INSERT (bench/intake.bench.ts): one round trip, one commit.
 */
export async function fileValidatedReport(db: Executor, ctx: Context, company: Company, fields: ReportFields, source: ReportSource): Promise<FileReportResult> {
  const id = newId();
  const now = new Date();
  const at = now.toISOString();
  const statusToken = randomHex(32);
  const report = reportView(id, now, source, fields);
  const event = eventInsertSql(company.id, 'vulnerability.reported', report, now);
  // The company object may be a moment old; the conditional update is what guarantees "once".
  const milestone = company.firstReportAt === null ? firstReportUpdateSql(company.id, now) : sql`select null::uuid as id where false`;
  const audit = { companyId: company.id, targetType: 'report', targetId: id, at: now };
  await db.execute(sql`with
new_report as (
  insert into reports (id, company_id, source, status, description, product_name, vulnerability_type,
    steps_to_reproduce, impact, contact_email, pgp_key, status_token_digest, created_at, updated_at)
  values (${id}::uuid, ${company.id}::uuid, ${source}, ${INITIAL_REPORT_STATUS}, ${fields.description},
    ${fields.productName ?? null}, ${fields.vulnerabilityType ?? null}, ${fields.stepsToReproduce ?? null},
    ${fields.impact ?? null}, ${fields.contactEmail ?? null}, ${fields.pgpKey ?? null}, ${sha256Hex(statusToken)},
    ${at}::timestamptz, ${at}::timestamptz)),
event as (${event.statement}),
${company.aiTriage ? sql`triage as (${triageInsertSql(company.id, id, now)}),` : sql``}
milestone as (${milestone}),
audit as (${auditInsertSql(ctx, {
    ...audit,
    action: 'reports.file',
    // No report text here: the audit log is exported and kept longer than a report may be.
    details: { source, triageQueued: company.aiTriage },
  })}),
milestone_audit as (${auditInsertSql(
    ctx,
    { ...audit, companyId: company.id, action: 'companies.first_report', targetType: 'company', targetId: company.id, details: { submissionId: id } },
    sql`exists (select 1 from milestone)`,
  )})
select 1`);
  return { report, statusToken };
}

/** Validates raw input with the shared report schema, then files it (VALIDATION on bad input). */
export async function fileReport(db: Executor, ctx: Context, company: Company, raw: unknown, source: ReportSource): Promise<FileReportResult> {
  return fileValidatedReport(db, ctx, company, parseInput(ReportFields, raw), source);
}
