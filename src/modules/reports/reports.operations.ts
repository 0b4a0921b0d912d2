import { type Operation, defineOperation } from '../operations/operation.js';
import { getCompanyById } from '../companies/get-company.js';
import type { ReportFiler } from './file-report.js';
import { UpdateReportInput } from './lifecycle.schemas.js';
import { updateReport } from './update-report.js';
import { ExportQuery, exportReports } from './export-reports.js';
import { FiledReport, Report, ReportFields, ReportPage } from './reports.schemas.js';

declare module '../operations/operation.js' {
  interface OperationServices {
    /** Files reports by group commit (shared with the portal and the bulk endpoint). */
    reportFiler: ReportFiler;
  }
}

export const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';

/**
 * The report endpoints: filing, triage (docs/workflow.md) and export (docs/api.md "Pagination");
 * `GET /vulnerabilities/{id}` with its suggestion is triage's (triage.operations.ts), Article 14's
 * are article14's.
 */
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
];
