import { type Operation, defineOperation } from '../operations/operation.js';
import { getArticle14, recordFiling } from '../article14/article14.js';
import { STAGES } from '../article14/article14-clock.js';
import { getCompanyById } from '../companies/get-company.js';
import { getSuggestion, TriageSuggestion } from '../triage/triage-suggestions.js';
import { UpdateReportInput } from './lifecycle.schemas.js';
import { updateReport } from './update-report.js';
import { ExportQuery, exportReports } from './export-reports.js';
import { getReport } from './get-report.js';
import { Article14Status, Article14View, RecordFilingInput } from '../article14/article14.schemas.js';
import { FiledReport, Report, ReportFields, ReportPage } from './reports.schemas.js';

/** `GET /vulnerabilities/{id}`: the report and its triage suggestion (null when none was made). */
const ReportWithSuggestion = Report.extend({ triageSuggestion: TriageSuggestion.nullable() }).meta({ id: 'ReportWithSuggestion' });

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';

/** The report endpoints: filing, triage (docs/workflow.md), export (docs/api.md "Pagination") and Article 14. */
export const reportOperations: Operation[] = [
  defineOperation({
    name: 'reports.file',
    statuses: [201],
    summary: 'File a vulnerability report (the authenticated twin of the portal form)',
    scope: 'submissions:write',
    untrustedOutput: true,
    method: 'POST',
    path: '/vulnerabilities',
    mcpTool: 'submit_vulnerability',
    input: ReportFields,
    output: FiledReport,
    example: {
      body: { description: 'Stack overflow in the CoAP parser of firmware 2.4', productName: 'Thermostat T2', vulnerabilityType: 'memory_corruption' },
    },
    handler: async ({ db, ctx, companyId, reportFiler, transport }, body) => {
      const company = await getCompanyById(db, companyId);
      const { report } = await reportFiler.fileRaw({ ctx, company, raw: body, source: transport === 'mcp' ? 'mcp' : 'api' });
      return { status: 201, body: report };
    },
  }),
  defineOperation({
    name: 'reports.export',
    summary: 'Export reports, newest first, at most 100 per page (cursor pagination, filters by status and time)',
    scope: 'read',
    untrustedOutput: true,
    method: 'GET',
    path: '/vulnerabilities/export',
    mcpTool: 'export_vulnerabilities',
    query: ExportQuery,
    output: ReportPage,
    example: { query: { limit: '10' } },
    handler: async ({ db, companyId, query }) => ({ status: 200, body: await exportReports(db, companyId, query) }),
  }),
  defineOperation({
    name: 'reports.get',
    summary: 'One report with its triage facts and its triage suggestion (null when AI triage has not run)',
    scope: 'read',
    untrustedOutput: true,
    method: 'GET',
    path: '/vulnerabilities/:id',
    mcpTool: 'get_vulnerability',
    output: ReportWithSuggestion,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => {
      const report = await getReport(db, companyId, params.id);
      return { status: 200, body: { ...report, triageSuggestion: await getSuggestion(db, companyId, report.submissionId) } };
    },
  }),
  defineOperation({
    name: 'reports.update',
    summary: "Change a report's status (lifecycle transitions only), severity and Article 14 facts",
    scope: 'triage:write',
    untrustedOutput: true,
    method: 'PATCH',
    path: '/vulnerabilities/:id',
    mcpTool: 'update_vulnerability',
    input: UpdateReportInput,
    output: Report,
    errors: { 409: "The status change is not a lifecycle transition from the report's current status." },
    example: { params: { id: EXAMPLE_ID }, body: { status: 'triaging' } },
    handler: async ({ db, ctx, companyId, params }, body) => {
      const report = await updateReport(db, ctx, companyId, params.id, body);
      return { status: 200, body: report };
    },
  }),
  defineOperation({
    name: 'article14.get',
    summary: "Whether Article 14 applies, each stage's due time and state, and its filing pack",
    scope: 'read',
    untrustedOutput: true,
    method: 'GET',
    path: '/vulnerabilities/:id/article14',
    mcpTool: 'get_article14_status',
    output: Article14View,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await getArticle14(db, companyId, params.id) }),
  }),
  defineOperation({
    name: 'article14.file',
    statuses: [201],
    summary: `Record that an Article 14 stage (${STAGES.join(', ')}) was filed in ENISA's Single Reporting Platform`,
    scope: 'triage:write',
    method: 'POST',
    path: '/vulnerabilities/:id/article14/:stage',
    input: RecordFilingInput,
    optionalBody: true,
    output: Article14Status,
    errors: {
      404: `Or no Article 14 stage of that name (stages: ${STAGES.join(', ')}).`,
      409: 'Article 14 does not apply to the report (not actively exploited, or no severe incident), or this stage is already recorded.',
    },
    example: { params: { id: EXAMPLE_ID, stage: 'early_warning' }, body: { reference: 'SRP-2026-0001' } },
    handler: async ({ db, ctx, companyId, params }, body) => {
      const status = await recordFiling(db, ctx, companyId, params.id, params.stage, body);
      return { status: 201, body: status };
    },
  }),
];
