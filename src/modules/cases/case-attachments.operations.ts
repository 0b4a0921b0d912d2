import type { Db } from '../../db/client.js';
import { asSystem } from '../../db/tenant-scope.js';
import { download } from '../operations/document-body.js';
import { type Operation, type OperationResult, defineOperation } from '../operations/operation.js';
import { ATTACHMENT_MEDIA_TYPES, attachmentDisposition } from './attachment-file.js';
import { readAttachment } from './case-attachments.js';
import { AttachmentBytes, CaseAttachmentContent, type CaseAttachmentView } from './case-attachments.schemas.js';
import { inboundParticipant } from './shared-thread.js';

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';
type Stored = CaseAttachmentView & { content: Buffer };

/**
 * A file as a download: its sniffed type, `attachment` with the sanitised name, `nosniff`, the
 * SHA-256 as `Repr-Digest` (the strict CSP of every answer applies): never shown inline.
 */
export const attachmentDownload = (a: Stored): OperationResult =>
  download({ mediaType: a.contentType, filename: a.filename, sha256: a.sha256, body: a.content, disposition: attachmentDisposition(a.filename) });

/** A file as JSON, for MCP and for REST clients that want one document: the metadata and the bytes in base64. */
const attachmentJson = ({ content, ...meta }: Stored): OperationResult => ({ status: 200, body: { ...meta, content: content.toString('base64') } });

type Env = { db: Db; companyId: string; params: { readonly id: string; readonly attachmentId: string } };

/** The company's file of one of its cases; NOT_FOUND for anything else. */
const own = (env: Env) => readAttachment(env.db, env.companyId, env.params.id, env.params.attachmentId);

/** A file of the thread another company shares with this one (its participation `id`); NOT_FOUND for any other. */
const inbound = async (env: Env) => {
  const p = await inboundParticipant(env.db, env.companyId, env.params.id);
  return asSystem(() => readAttachment(env.db, p.companyId, p.caseId, env.params.attachmentId, p.id));
};

/**
 * The files of case messages (docs/coordination.md "Attachments"); they are posted with the message
 * operations. Each is read as JSON (with an MCP tool) or downloaded as it was sent (`/content`).
 */
export const caseAttachmentOperations: Operation[] = [
  defineOperation({
    scope: 'read',
    method: 'GET',
    untrustedOutput: true,
    name: 'cases.attachments.get',
    summary: 'One file sent with a message of the case: its name, type, size, SHA-256 and bytes (base64)',
    path: '/cases/:id/attachments/:attachmentId',
    output: CaseAttachmentContent,
    mcpTool: 'get_case_attachment',
    example: { params: { id: EXAMPLE_ID, attachmentId: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => attachmentJson(await own({ db, companyId, params })),
  }),
  defineOperation({
    scope: 'read',
    method: 'GET',
    untrustedOutput: true,
    name: 'cases.attachments.download',
    summary: 'One file sent with a message of the case, as a download of its bytes',
    path: '/cases/:id/attachments/:attachmentId/content',
    output: AttachmentBytes,
    produces: ATTACHMENT_MEDIA_TYPES,
    example: { params: { id: EXAMPLE_ID, attachmentId: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => attachmentDownload(await own({ db, companyId, params })),
  }),
  defineOperation({
    scope: 'read',
    method: 'GET',
    untrustedOutput: true,
    name: 'cases.inbound.attachments.get',
    summary: 'One file of the thread another company shares with this one: its name, type, size, SHA-256 and bytes (base64)',
    path: '/inbound-cases/:id/attachments/:attachmentId',
    output: CaseAttachmentContent,
    mcpTool: 'get_inbound_case_attachment',
    example: { params: { id: EXAMPLE_ID, attachmentId: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => attachmentJson(await inbound({ db, companyId, params })),
  }),
  defineOperation({
    scope: 'read',
    method: 'GET',
    untrustedOutput: true,
    name: 'cases.inbound.attachments.download',
    summary: 'One file of the thread another company shares with this one, as a download of its bytes',
    path: '/inbound-cases/:id/attachments/:attachmentId/content',
    output: AttachmentBytes,
    produces: ATTACHMENT_MEDIA_TYPES,
    example: { params: { id: EXAMPLE_ID, attachmentId: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => attachmentDownload(await inbound({ db, companyId, params })),
  }),
];
