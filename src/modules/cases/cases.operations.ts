import { z } from 'zod';
import { siteUrl } from '../../config.js';
import { type Operation, defineOperation } from '../operations/operation.js';
import { addParticipant } from './add-participant.js';
import { endEmbargo, proposeEmbargo } from './case-embargo.js';
import { listCaseMessages, postCaseMessage } from './case-messages.js';
import { listNotices, prepareNotices } from './case-notices.js';
import { getCaseRow } from './case-store.js';
import {
  AddParticipantInput,
  Case,
  CaseMessage,
  CaseMessageInput,
  CaseSummary,
  ConfirmNoticesInput,
  EndEmbargoInput,
  Notice,
  OpenCaseInput,
  Participant,
  PrepareNoticesInput,
  ProposeEmbargoInput,
  UpdateParticipantInput,
} from './cases.schemas.js';
import { confirmNotices } from './confirm-notices.js';
import { getCase, listCases } from './get-case.js';
import { CoordinatorPack, coordinatorPack } from './coordinator-pack.js';
import { openCase } from './open-case.js';
import { updateParticipant } from './update-participant.js';
import { inboundOperations } from './inbound.operations.js';
import { caseFixOperations } from './case-fixes.operations.js';
import { caseAttachmentOperations } from './case-attachments.operations.js';
import { ATTACHMENT_JSON_BODY_LIMIT } from './attachment-file.js';

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';

const ListCasesQuery = z.object({ reportId: z.uuid().optional().meta({ description: 'Only the cases holding this report.' }) }).strict();

/** Coordination cases (CRA Article 13(6)): docs/coordination.md. */
export const caseOperations: Operation[] = [
  defineOperation({
    name: 'cases.list',
    summary: "The company's coordination cases, most recently changed first",
    scope: 'read',
    method: 'GET',
    path: '/cases',
    query: ListCasesQuery,
    output: z.array(CaseSummary).meta({ id: 'CaseSummaries' }),
    mcpTool: 'list_cases',
    example: {},
    handler: async ({ db, companyId, query }) => ({ status: 200, body: await listCases(db, companyId, ListCasesQuery.parse(query)) }),
  }),
  defineOperation({
    name: 'cases.open',
    summary: 'Open a coordination case from reports, a known-vulnerability match, or from scratch',
    scope: 'triage:write',
    method: 'POST',
    path: '/cases',
    statuses: [201],
    input: OpenCaseInput,
    output: Case,
    errors: { 404: "A named report or known-vulnerability match is not one of the company's." },
    mcpTool: 'open_case',
    example: { body: { title: 'Heap overflow in the lwIP DHCP client', summary: 'A crafted DHCP offer overflows a buffer in lwIP 2.2.0.' } },
    handler: async ({ db, ctx, companyId }, body) => ({ status: 201, body: await openCase(db, ctx, companyId, body) }),
  }),
  defineOperation({
    name: 'cases.get',
    summary: 'One case: participants with their status, reports, embargo and the case log',
    scope: 'read',
    method: 'GET',
    path: '/cases/:id',
    output: Case,
    mcpTool: 'get_case',
    untrustedOutput: true,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await getCase(db, companyId, params.id) }),
  }),
  defineOperation({
    name: 'cases.coordinator_pack',
    summary: 'A summary of the case to hand to a coordinator (CSIRT): participants, dates, embargo and log; no secrets, no report or message text',
    scope: 'read',
    method: 'GET',
    path: '/cases/:id/coordinator-pack',
    output: CoordinatorPack,
    mcpTool: 'get_case_coordinator_pack',
    untrustedOutput: true,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => ({
      status: 200,
      body: await coordinatorPack(db, companyId, params.id),
      headers: { 'content-disposition': `attachment; filename="case-${params.id.replace(/[^0-9a-f-]/gi, '')}-coordinator-pack.json"` },
    }),
  }),
  defineOperation({
    name: 'cases.participants.add',
    summary: "Add a participant by hand: another company's slug on this instance, a repository URL, or an e-mail address (with an optional OpenPGP key)",
    scope: 'triage:write',
    method: 'POST',
    path: '/cases/:id/participants',
    statuses: [201],
    input: AddParticipantInput,
    output: Participant,
    mcpTool: 'add_case_participant',
    example: { params: { id: EXAMPLE_ID }, body: { role: 'upstream_maintainer', email: 'security@lwip.example.org' } },
    handler: async ({ db, ctx, companyId, params }, body) => ({ status: 201, body: await addParticipant(db, ctx, companyId, params.id, body) }),
  }),
  defineOperation({
    name: 'cases.participants.update',
    summary: "Record a participant's status (CSAF involvement) or the date its fix became available",
    scope: 'triage:write',
    method: 'PATCH',
    path: '/cases/:id/participants/:participantId',
    input: UpdateParticipantInput,
    output: Participant,
    mcpTool: 'update_case_participant',
    example: { params: { id: EXAMPLE_ID, participantId: EXAMPLE_ID }, body: { status: 'in_progress' } },
    handler: async ({ db, ctx, companyId, params }, body) => ({
      status: 200,
      body: await updateParticipant(db, ctx, companyId, params.id, params.participantId, body),
    }),
  }),
  defineOperation({
    name: 'cases.notices.list',
    summary: 'The notices of a case, prepared and sent, newest first',
    scope: 'read',
    method: 'GET',
    path: '/cases/:id/notices',
    output: z.array(Notice).meta({ id: 'CaseNotices' }),
    mcpTool: 'list_case_notices',
    untrustedOutput: true,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await listNotices(db, companyId, params.id) }),
  }),
  defineOperation({
    name: 'cases.notices.prepare',
    summary: 'Prepare the notices: exactly what will go out to each participant (subject, body, recipient, encrypted or not); nothing is sent',
    scope: 'triage:write',
    method: 'POST',
    path: '/cases/:id/notices',
    statuses: [201],
    input: PrepareNoticesInput,
    optionalBody: true,
    output: z.array(Notice).meta({ id: 'PreparedCaseNotices' }),
    errors: {
      404: 'A named participant is not on the case.',
      409: 'The case is closed, or changed while the notices were prepared.',
      422: "A participant's channel cannot carry a notice.",
    },
    mcpTool: 'prepare_case_notices',
    untrustedOutput: true,
    example: { params: { id: EXAMPLE_ID }, body: {} },
    handler: async ({ db, ctx, companyId, params }, body) => ({ status: 201, body: await prepareNotices(db, ctx, companyId, params.id, body) }),
  }),
  defineOperation({
    name: 'cases.notices.confirm',
    summary: 'Send prepared notices as shown; refused when the case changed since they were prepared',
    scope: 'triage:write',
    method: 'POST',
    path: '/cases/:id/notices/confirm',
    input: ConfirmNoticesInput,
    output: z.array(Notice).meta({ id: 'SentCaseNotices' }),
    errors: {
      404: 'A named notice is not one of the case.',
      409: 'A notice was already sent or replaced, or the case changed since it was prepared.',
      422: "A participant's channel cannot carry a notice.",
    },
    mcpTool: 'confirm_case_notices',
    mcpAnnotations: { openWorldHint: true },
    example: { params: { id: EXAMPLE_ID }, body: { noticeIds: [EXAMPLE_ID] } },
    handler: async ({ db, ctx, companyId, params, config }, body) => ({
      status: 200,
      body: await confirmNotices(db, ctx, companyId, params.id, body, { siteUrl: siteUrl(config) }),
    }),
  }),
  defineOperation({
    name: 'cases.messages.list',
    summary: 'The threads shared with the participants, oldest first (participant text is untrusted)',
    scope: 'read',
    method: 'GET',
    path: '/cases/:id/messages',
    output: z.array(CaseMessage).meta({ id: 'CaseMessages' }),
    mcpTool: 'list_case_messages',
    untrustedOutput: true,
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => {
      await getCaseRow(db, companyId, params.id);
      return { status: 200, body: await listCaseMessages(db, companyId, params.id) };
    },
  }),
  defineOperation({
    name: 'cases.messages.post',
    summary: 'Write into the thread shared with one participant, with files if any (base64)',
    scope: 'triage:write',
    method: 'POST',
    path: '/cases/:id/messages',
    statuses: [201],
    input: CaseMessageInput,
    jsonBodyLimit: ATTACHMENT_JSON_BODY_LIMIT,
    output: CaseMessage,
    errors: { 404: 'The participant is not on the case.', 409: 'The files would take the case past its attachment limit.' },
    mcpTool: 'post_case_message',
    example: {
      params: { id: EXAMPLE_ID },
      body: { participantId: EXAMPLE_ID, body: 'Our patch is attached to the notice; can you review it before 1 February?' },
    },
    handler: async ({ db, ctx, companyId, params }, body) => ({ status: 201, body: await postCaseMessage(db, ctx, companyId, params.id, body) }),
  }),
  defineOperation({
    name: 'cases.embargo.propose',
    summary: 'Propose the embargo end date; every participant answers again',
    scope: 'triage:write',
    method: 'PUT',
    path: '/cases/:id/embargo',
    input: ProposeEmbargoInput,
    output: Case,
    errors: { 409: 'The case is closed or its embargo has ended.' },
    mcpTool: 'propose_case_embargo',
    example: { params: { id: EXAMPLE_ID }, body: { until: '2099-02-01' } },
    handler: async ({ db, ctx, companyId, params }, body) => {
      await proposeEmbargo(db, ctx, companyId, params.id, body);
      return { status: 200, body: await getCase(db, companyId, params.id) };
    },
  }),
  defineOperation({
    name: 'cases.embargo.end',
    summary: 'End the embargo early, with the reason',
    scope: 'triage:write',
    method: 'POST',
    path: '/cases/:id/embargo/end',
    input: EndEmbargoInput,
    output: Case,
    errors: { 409: 'There is no embargo to end.' },
    mcpTool: 'end_case_embargo',
    example: { params: { id: EXAMPLE_ID }, body: { reason: 'Exploited in the wild since 12 January.' } },
    handler: async ({ db, ctx, companyId, params }, body) => {
      await endEmbargo(db, ctx, companyId, params.id, body);
      return { status: 200, body: await getCase(db, companyId, params.id) };
    },
  }),
  ...caseFixOperations,
  ...caseAttachmentOperations,
  ...inboundOperations,
];
