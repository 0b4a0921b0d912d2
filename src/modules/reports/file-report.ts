import { sql } from 'drizzle-orm';
import { mailMessages, outboxEvents, reports, triageJobs } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Database, Executor } from '../../db/client.js';
import { asSystem } from '../../db/tenant-scope.js';
import type { Context } from '../../kernel/context.js';
import { createGroupCommit } from '../../db/group-commit.js';
import { newId, randomHex, sha256Hex } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { isSafeMailbox } from '../mail/mail-header.js';
import type { Company } from '../companies/companies.schemas.js';
import { AUDIT_COLUMNS } from '../audit/audit-insert-sql.js';
import { eventPayload } from '../webhooks/enqueue-event.js';
import { type FiledReport, INITIAL_REPORT_STATUS, ReportFields, type ReportSource } from './reports.schemas.js';

export type FileReportResult = {
  report: FiledReport;
  /**
   * The researcher's status capability: shown once (the private status link), stored only as a
   * digest. 256 random bits, so the link is the credential.
   */
  statusToken: string;
};

/**
 * One report to file: who files it, into which company, what, and through which surface.
 * `researcherUpdates` (the portal form's opt-in, only when e-mail is configured) queues the
 * acknowledgement mail in the filing's own statement: a confirmation request that carries no link to
 * the report (issue 32, finding 4); later status notes reach the researcher once they confirm.
 */
export type Filing = { ctx: Context; company: Company; fields: ReportFields; source: ReportSource; researcherUpdates?: boolean };

/**
 * Everything one report writes, as one element of the JSON array the filing statement reads
 * (`jsonb_to_recordset`). The report's id, time and token digest are fixed here, before the write,
 * so a batch and its one-by-one retry write the same report and answer with the same ids.
 */
type FilingRow = {
  id: string;
  company_id: string;
  source: ReportSource;
  description: string;
  product_name: string | null;
  vulnerability_type: string | null;
  steps_to_reproduce: string | null;
  impact: string | null;
  contact_email: string | null;
  pgp_key: string | null;
  status_token_digest: string;
  researcher_updates: boolean;
  researcher_mail_token: string | null;
  /** The acknowledgement mail's id and template values (submission id, status link), when opted in. */
  ack_id: string | null;
  ack_data: Record<string, string> | null;
  created_at: string;
  payload: ReturnType<typeof eventPayload>;
  actor_type: string;
  actor_id: string | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
};

type Prepared = { row: FilingRow; result: FileReportResult };

/** The report as every reader sees it (webhook payload, later REST/MCP): absent fields omitted. */
function reportView(id: string, at: Date, source: ReportSource, fields: ReportFields): FiledReport {
  const given = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as ReportFields;
  return { submissionId: id, createdAt: at.toISOString(), status: INITIAL_REPORT_STATUS, source, ...given };
}

function prepare({ ctx, company, fields, source, researcherUpdates }: Filing): Prepared {
  const id = newId();
  const now = new Date();
  const statusToken = randomHex(32);
  const report = reportView(id, now, source, fields);
  const mailed = researcherUpdates === true && fields.contactEmail !== undefined && isSafeMailbox(fields.contactEmail);
  const row: FilingRow = {
    id,
    company_id: company.id,
    source,
    description: fields.description,
    product_name: fields.productName ?? null,
    vulnerability_type: fields.vulnerabilityType ?? null,
    steps_to_reproduce: fields.stepsToReproduce ?? null,
    impact: fields.impact ?? null,
    contact_email: fields.contactEmail ?? null,
    pgp_key: fields.pgpKey ?? null,
    status_token_digest: sha256Hex(statusToken),
    researcher_updates: mailed,
    researcher_mail_token: mailed ? randomHex(16) : null,
    ack_id: mailed ? newId() : null,
    // The submission id only: the first mail to an address never links to the text written with it.
    ack_data: mailed ? { submissionId: id } : null,
    created_at: report.createdAt,
    payload: eventPayload('vulnerability.reported', report, now),
    actor_type: ctx.actor.type,
    actor_id: 'id' in ctx.actor ? ctx.actor.id : null,
    ip: ctx.ip ?? null,
    user_agent: ctx.userAgent ?? null,
    request_id: ctx.requestId ?? null,
  };
  return { row, result: { report, statusToken } };
}

/**
 * Writes any number of reports, of any companies, with every side effect of docs/intake.md "What
 * filing a report does": each report, its `vulnerability.reported` outbox event, a triage job where
 * the company has AI triage on, its `reports.file` audit row, and each company's first-report
 * milestone (set once, to the earliest report of the batch; its `companies.first_report` audit row
 * only when this statement set it).
 *
 * All of it is ONE statement of data-modifying CTEs over one JSON parameter, which PostgreSQL runs
 * atomically: a failure anywhere (an unknown company fails the reports' foreign key) stores nothing
 * of the batch. The statement text is the same for one report or fifty, so its cost per report falls
 * with the batch size. The AI-triage flag and the milestone are read from the company rows
 * themselves, so a company object read a moment ago (the portal's cache) cannot decide them. No
 * report text goes into an audit row: the audit log is exported and kept longer than a report may be.
 */
async function writeFilings(db: Executor, rows: readonly FilingRow[]): Promise<void> {
  await db.execute(sql`with
items as (
  select i.*, coalesce(c.ai_triage, false) as ai_triage, c.id is not null and c.first_report_at is null as maybe_first
  from jsonb_to_recordset(${JSON.stringify(rows.map((r, ord) => ({ ...r, ord })))}::jsonb) as i(
    id uuid, company_id uuid, source text, description text, product_name text, vulnerability_type text,
    steps_to_reproduce text, impact text, contact_email text, pgp_key text, status_token_digest text,
    researcher_updates boolean, researcher_mail_token text, ack_id uuid, ack_data jsonb,
    created_at timestamptz, payload jsonb, actor_type text, actor_id text, ip text, user_agent text,
    request_id text, ord int)
  left join companies c on c.id = i.company_id),
new_reports as (
  insert into ${reports} (${sqlColumns(reports, ['id', 'companyId', 'source', 'status', 'description', 'productName', 'vulnerabilityType', 'stepsToReproduce', 'impact', 'contactEmail', 'pgpKey', 'statusTokenDigest', 'researcherUpdates', 'researcherMailToken', 'createdAt', 'updatedAt'])})
  select id, company_id, source, ${INITIAL_REPORT_STATUS}, description, product_name, vulnerability_type,
    steps_to_reproduce, impact, contact_email, pgp_key, status_token_digest, researcher_updates, researcher_mail_token,
    created_at, created_at
  from items order by ord),
acks as (
  insert into ${mailMessages} (${sqlColumns(mailMessages, ['id', 'companyId', 'kind', 'recipient', 'reportId', 'data', 'nextAttemptAt', 'createdAt'])})
  select ack_id, company_id, 'researcher.ack', contact_email, id, ack_data, created_at, created_at
  from items where ack_id is not null order by ord),
events as (
  insert into ${outboxEvents} (${sqlColumns(outboxEvents, ['id', 'companyId', 'type', 'payload', 'createdAt'])})
  select gen_random_uuid(), company_id, 'vulnerability.reported', payload, created_at from items order by ord),
triage as (
  insert into ${triageJobs} (${sqlColumns(triageJobs, ['id', 'companyId', 'reportId', 'state', 'createdAt', 'updatedAt'])})
  select gen_random_uuid(), company_id, id, 'pending', created_at, created_at from items where ai_triage order by ord),
firsts as (
  select distinct on (company_id) company_id, ord from items where maybe_first order by company_id, created_at, ord),
-- Conditional, so race-free: a concurrent first filing waits for the row lock, re-checks
-- "is null" against the committed row and updates nothing.
milestone as (
  update companies c set first_report_at = i.created_at from firsts f join items i on i.ord = f.ord
  where c.id = f.company_id and c.first_report_at is null returning i.ord),
audit as (
  insert into audit_log (${AUDIT_COLUMNS})
  select company_id, created_at, actor_type, actor_id, 'reports.file', 'report', id::text, 'success', ip, user_agent, request_id,
    jsonb_build_object('source', source, 'triageQueued', ai_triage)
  from items order by ord),
milestone_audit as (
  insert into audit_log (${AUDIT_COLUMNS})
  select company_id, created_at, actor_type, actor_id, 'companies.first_report', 'company', company_id::text, 'success', ip, user_agent, request_id,
    jsonb_build_object('submissionId', id)
  from items where ord in (select ord from milestone) order by ord)
select 1`);
}

/**
 * Files already-validated report fields into `company` at once, in one statement of its own (or in
 * the caller's transaction when `db` is one). Request handlers file through a `ReportFiler`
 * instead, which shares that statement with concurrent filings.
 */
export async function fileValidatedReport(db: Executor, ctx: Context, company: Company, fields: ReportFields, source: ReportSource): Promise<FileReportResult> {
  const p = prepare({ ctx, company, fields, source });
  await writeFilings(db, [p.row]);
  return p.result;
}

/** Validates raw input with the shared report schema, then files it (VALIDATION on bad input). */
export async function fileReport(db: Executor, ctx: Context, company: Company, raw: unknown, source: ReportSource): Promise<FileReportResult> {
  return fileValidatedReport(db, ctx, company, parseInput(ReportFields, raw), source);
}

export type ReportFiler = {
  /** Resolves once the report and all its side effects are committed; rejects when they are not. */
  file(filing: Filing): Promise<FileReportResult>;
  /** Validates raw input with the shared report schema (VALIDATION on bad input), then files it. */
  fileRaw(filing: Omit<Filing, 'fields'> & { raw: unknown }): Promise<FileReportResult>;
  /** Waits for every queued filing to be committed or refused. */
  drain(): Promise<void>;
};

/**
 * Group commit of report filings (docs/adr/0010-report-group-commit.md): filings that arrive while
 * a batch is being written wait for the next batch, and each batch is one `writeFilings` statement,
 * so under load one commit (one WAL flush, one statement to parse and plan) carries many reports of
 * many companies. Each caller is answered only after the batch holding its report committed, so
 * an acknowledged report always has all its side effects. A failed batch is retried one filing at
 * a time, so one bad filing does not fail the others.
 *
 * A batch writes several companies' rows, so it runs as Cradle's own cross-company code
 * (`asSystem`), not in the scope of whichever request happened to start it.
 */
export function createReportFiler(database: Pick<Database, 'db' | 'kind'>, opts: { maxBatch?: number; maxInFlight?: number } = {}): ReportFiler {
  const group = createGroupCommit(
    async (batch: Prepared[]) => {
      await asSystem(() =>
        writeFilings(
          database.db,
          batch.map((p) => p.row),
        ),
      );
      return batch.map((p) => p.result);
    },
    // Bounded: with every field at its maximum a batch is about 20 MB of JSON (a typical report is a
    // few KB). PostgreSQL overlaps a few batches (one waits for its WAL flush while the next is
    // written; the pool's system lane has about 30 % of the connections); PGlite has one connection.
    { maxBatch: opts.maxBatch ?? 64, maxInFlight: opts.maxInFlight ?? (database.kind === 'postgres' ? 3 : 1) },
  );
  return {
    file: (filing) => group.submit(prepare(filing)),
    fileRaw: async ({ raw, ...rest }) => group.submit(prepare({ ...rest, fields: parseInput(ReportFields, raw) })),
    drain: () => group.drain(),
  };
}
