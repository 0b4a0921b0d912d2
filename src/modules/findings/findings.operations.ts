import { type Operation, defineOperation } from '../operations/operation.js';
import { documentBytes } from '../operations/document-body.js';
import { parseInput } from '../../kernel/validate.js';
import { FindingPage, ListFindingsQuery, PushSarifQuery, PushSarifResult, SarifLog } from './findings.schemas.js';
import { listFindings } from './list-findings.js';
import { pushSarif } from './push-sarif.js';

const EXAMPLE_SARIF = {
  version: '2.1.0',
  runs: [
    {
      tool: { driver: { name: 'ESLint', rules: [{ id: 'no-eval' }] } },
      results: [
        {
          ruleId: 'no-eval',
          level: 'error',
          message: { text: 'eval can be harmful.' },
          locations: [{ physicalLocation: { artifactLocation: { uri: 'src/parse.js' }, region: { startLine: 12 } } }],
        },
      ],
    },
  ],
};

/** The REST endpoints for scan results (docs/evidence.md "HTTP"). */
export const findingOperations: Operation[] = [
  defineOperation({
    name: 'sarif.push',
    statuses: [201],
    summary: 'Push a SARIF 2.1.0 log for a product: its failing results become findings, reconciled per tool (new, fixed, reopened, unchanged)',
    scope: 'sarif:write',
    method: 'POST',
    path: '/sarif',
    mcpTool: 'push_sarif',
    mcpBodyName: 'document',
    rawBody: { mediaTypes: ['application/json', 'application/sarif+json'], maxBytes: (c) => c.evidenceMaxBytes },
    query: PushSarifQuery,
    input: SarifLog,
    output: PushSarifResult,
    errors: {
      404: 'No product of your company has the identifier given in `product`.',
      409: 'The product is archived: restore it before adding evidence.',
      422: 'Reading the document took longer than its budget of 30 s of work (the CPU time of the thread reading it); it was stopped and nothing was stored.',
    },
    example: { query: { product: 'thermo-t2' }, body: EXAMPLE_SARIF },
    handler: async ({ db, ctx, companyId, query, config }, body) => {
      const { product, sourceRoot } = parseInput(PushSarifQuery, query);
      const opts = { maxBytes: config.evidenceMaxBytes, ...(sourceRoot === undefined ? {} : { sourceRoot }) };
      const scan = await pushSarif(db, ctx, companyId, product, documentBytes(body), opts);
      return { status: 201, body: scan };
    },
  }),
  defineOperation({
    name: 'findings.list',
    summary: 'Scan findings, most severe first, filtered by product, state, severity and tool (offset paging)',
    scope: 'read',
    method: 'GET',
    path: '/findings',
    mcpTool: 'list_findings',
    query: ListFindingsQuery,
    output: FindingPage,
    example: { query: { state: 'open', limit: '50' } },
    handler: async ({ db, companyId, query }) => {
      const { limit, offset, ...filter } = parseInput(ListFindingsQuery, query);
      return { status: 200, body: await listFindings(db, companyId, filter, { limit, offset }) };
    },
  }),
];
