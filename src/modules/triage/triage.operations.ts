import { type Operation, defineOperation } from '../operations/operation.js';
import { getReport } from '../reports/get-report.js';
import { EXAMPLE_ID } from '../reports/reports.operations.js';
import { Report } from '../reports/reports.schemas.js';
import { getSuggestion, TriageSuggestion } from './triage-suggestions.js';

/** `GET /vulnerabilities/{id}`: the report and its triage suggestion (null when none was made). */
const ReportWithSuggestion = Report.extend({ triageSuggestion: TriageSuggestion.nullable() }).meta({ id: 'ReportWithSuggestion' });

/** The report as triage sees it: its fields and the triage suggestion (docs/workflow.md). */
export const triageOperations: Operation[] = [
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
];
