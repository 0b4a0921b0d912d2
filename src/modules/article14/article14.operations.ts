import { type Operation, defineOperation } from '../operations/operation.js';
import { EXAMPLE_ID } from '../reports/reports.operations.js';
import { getArticle14, recordFiling } from './article14.js';
import { STAGES } from './article14-clock.js';
import { Article14Status, Article14View, RecordFilingInput } from './article14.schemas.js';
import { InboxOverview, inboxOverview } from './inbox-overview.js';

/** A report's Article 14 clocks, filing pack and filings (docs/workflow.md "Article 14 clocks and filing packs"). */
export const article14Operations: Operation[] = [
  defineOperation({
    name: 'reports.overview',
    summary: 'What waits on the team: counts of new, unassigned and overdue reports, and every running response clock promised on the portal',
    scope: 'read',
    method: 'GET',
    path: '/vulnerabilities/overview',
    mcpTool: 'get_inbox_overview',
    output: InboxOverview,
    example: {},
    handler: async ({ db, companyId }) => ({ status: 200, body: await inboxOverview(db, companyId) }),
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
