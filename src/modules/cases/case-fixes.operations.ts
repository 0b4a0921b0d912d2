import { z } from 'zod';
import { type Operation, defineOperation } from '../operations/operation.js';
import { addCaseFix, listCaseFixes } from './case-fixes.js';
import { AddCaseFixInput, CaseFix } from './case-fixes.schemas.js';

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';

/** Sharing the fix with the case's upstream (CRA Article 13(6)): docs/coordination.md "Sharing the fix". */
export const caseFixOperations: Operation[] = [
  defineOperation({
    name: 'cases.fixes.list',
    summary: 'The fixes attached to a case (patches and descriptions, with their OSV drafts), oldest first',
    scope: 'read',
    method: 'GET',
    path: '/cases/:id/fixes',
    output: z.array(CaseFix).meta({ id: 'CaseFixes' }),
    mcpTool: 'list_case_fixes',
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await listCaseFixes(db, companyId, params.id) }),
  }),
  defineOperation({
    name: 'cases.fixes.add',
    summary:
      "Attach a fix to share with the case's upstream maintainers: a patch (a unified diff) or a description, optionally with an OSV draft of the upstream advisory",
    scope: 'triage:write',
    method: 'POST',
    path: '/cases/:id/fixes',
    statuses: [201],
    input: AddCaseFixInput,
    output: CaseFix,
    errors: { 409: 'The case is closed.' },
    mcpTool: 'add_case_fix',
    example: {
      params: { id: EXAMPLE_ID },
      body: { kind: 'description', body: 'Check the option length against the buffer before copying (dhcp.c, dhcp_parse_reply).', osvDraft: true },
    },
    handler: async ({ db, ctx, companyId, params }, body) => ({ status: 201, body: await addCaseFix(db, ctx, companyId, params.id, body) }),
  }),
];
