import { type Operation, defineOperation } from '../operations/operation.js';
import { getCompanyById } from '../companies/get-company.js';
import type { ReportFiler } from './file-report.js';
import { UpdateReportInput } from './lifecycle.schemas.js';
import { updateReport } from './update-report.js';
import { ExportQuery, exportReportsCached } from './export-reports.js';
import { FiledReport, Report, ReportFields, ReportPage } from './reports.schemas.js';
import { addNote, listNotes, NoteInput, ReportNote } from './report-notes.js';
import { BulkUpdateInput, BulkUpdateResult, bulkUpdateReports } from './bulk-update.js';
import { z } from 'zod';

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
    handler: async ({ db, companyId, query }) => ({ status: 200, body: await exportReportsCached(db, companyId, query) }),
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
    name: 'reports.bulk_update',
    summary: 'Change up to 100 reports at once (assign, change state, close as duplicate or spam with a reason); one result per report',
    scope: 'triage:write',
    method: 'POST',
    path: '/vulnerabilities/bulk-update',
    mcpTool: 'bulk_update_vulnerabilities',
    // It changes existing reports, as the PATCH does (docs/mcp.md "Tools").
    mcpAnnotations: { destructiveHint: true },
    input: BulkUpdateInput,
    output: BulkUpdateResult,
    example: { body: { ids: [EXAMPLE_ID], status: 'spam', reason: 'Advertising, no technical content.' } },
    handler: async ({ db, ctx, companyId }, body) => ({ status: 200, body: await bulkUpdateReports(db, ctx, companyId, body) }),
  }),
  defineOperation({
    name: 'reports.notes.list',
    summary: "The team's notes on a report, oldest first (never shown to the researcher)",
    scope: 'read',
    method: 'GET',
    path: '/vulnerabilities/:id/notes',
    mcpTool: 'list_vulnerability_notes',
    output: z.array(ReportNote).meta({ id: 'ReportNotes' }),
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await listNotes(db, companyId, params.id) }),
  }),
  defineOperation({
    name: 'reports.notes.add',
    statuses: [201],
    summary: 'Add a team-only note to a report: no event, no mail, never on the status page',
    scope: 'triage:write',
    method: 'POST',
    path: '/vulnerabilities/:id/notes',
    mcpTool: 'add_vulnerability_note',
    input: NoteInput,
    output: ReportNote,
    example: { params: { id: EXAMPLE_ID }, body: { body: 'Same root cause as the T1 parser bug; ask firmware team.' } },
    handler: async ({ db, ctx, companyId, params }, body) => ({ status: 201, body: await addNote(db, ctx, companyId, params.id, body) }),
  }),
];
