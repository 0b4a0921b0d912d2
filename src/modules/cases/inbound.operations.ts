import { z } from 'zod';
import { type Operation, defineOperation } from '../operations/operation.js';
import { ATTACHMENT_JSON_BODY_LIMIT } from './attachment-file.js';
import { CaseMessage, EmbargoResponseInput, SharedCase, SharedMessageInput } from './cases.schemas.js';
import { acknowledgeCase, answerEmbargo, inboundParticipant, listInbound, postSharedMessage, sharedCase } from './shared-thread.js';

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';

const InboundCase = z
  .object({
    participantId: z.uuid().meta({ description: "The id of this company's participation in the other company's case." }),
    from: z.string().meta({ description: 'The company that coordinates the case.' }),
    title: z.string(),
    status: z.string(),
    embargo: SharedCase.shape.embargo,
    peerReportId: z.uuid().nullable().meta({ description: "The report the notice filed into this company's inbox." }),
    notifiedAt: z.iso.datetime(),
  })
  .meta({ id: 'InboundCase' });

/**
 * The other side of a `cradle` notice: cases of other companies on this instance that notified
 * this one. Its answers (acknowledgement, embargo, messages) flow back into the sender's case.
 */
export const inboundOperations: Operation[] = [
  defineOperation({
    name: 'cases.inbound.list',
    summary: 'Cases of other companies on this instance that notified this company',
    scope: 'read',
    method: 'GET',
    path: '/inbound-cases',
    output: z.array(InboundCase).meta({ id: 'InboundCases' }),
    mcpTool: 'list_inbound_cases',
    example: {},
    handler: async ({ db, companyId }) => ({ status: 200, body: await listInbound(db, companyId) }),
  }),
  defineOperation({
    name: 'cases.inbound.get',
    summary: 'The thread another company shares with this one: its notices, messages and embargo',
    scope: 'read',
    method: 'GET',
    path: '/inbound-cases/:id',
    output: SharedCase,
    mcpTool: 'get_inbound_case',
    untrustedOutput: true,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await sharedCase(db, await inboundParticipant(db, companyId, params.id)) }),
  }),
  defineOperation({
    name: 'cases.inbound.acknowledge',
    summary: "Acknowledge another company's notice (its case shows this company as open)",
    scope: 'triage:write',
    method: 'POST',
    path: '/inbound-cases/:id/acknowledge',
    output: SharedCase,
    errors: { 409: 'The case is closed.' },
    mcpTool: 'acknowledge_inbound_case',
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, ctx, companyId, params }) => {
      const p = await inboundParticipant(db, companyId, params.id);
      await acknowledgeCase(db, ctx, p, { kind: 'company', companyId });
      return { status: 200, body: await sharedCase(db, await inboundParticipant(db, companyId, params.id)) };
    },
  }),
  defineOperation({
    name: 'cases.inbound.embargo',
    summary: "Accept another company's proposed embargo date, or propose another",
    scope: 'triage:write',
    method: 'POST',
    path: '/inbound-cases/:id/embargo',
    input: EmbargoResponseInput,
    output: SharedCase,
    errors: { 409: 'The case is closed or proposes no embargo.' },
    mcpTool: 'answer_inbound_embargo',
    example: { params: { id: EXAMPLE_ID }, body: { response: 'counter', until: '2099-03-01' } },
    handler: async ({ db, ctx, companyId, params }, body) => {
      const p = await inboundParticipant(db, companyId, params.id);
      await answerEmbargo(db, ctx, p, { kind: 'company', companyId }, body);
      return { status: 200, body: await sharedCase(db, await inboundParticipant(db, companyId, params.id)) };
    },
  }),
  defineOperation({
    name: 'cases.inbound.messages.post',
    summary: 'Write into the thread another company shares with this one, with files if any (base64)',
    scope: 'triage:write',
    method: 'POST',
    path: '/inbound-cases/:id/messages',
    statuses: [201],
    input: SharedMessageInput,
    jsonBodyLimit: ATTACHMENT_JSON_BODY_LIMIT,
    errors: { 409: 'The case is closed, or the files would take it past its attachment limit.' },
    output: CaseMessage,
    mcpTool: 'post_inbound_case_message',
    example: { params: { id: EXAMPLE_ID }, body: { body: 'Confirmed; we will ship 2.2.1 with the fix.' } },
    handler: async ({ db, ctx, companyId, params }, body) => {
      const p = await inboundParticipant(db, companyId, params.id);
      return { status: 201, body: await postSharedMessage(db, ctx, p, body) };
    },
  }),
];
