import { z } from 'zod';
import { type Operation, defineOperation } from '../operations/operation.js';
import { getReport } from '../reports/get-report.js';
import { listMessages, MessageInput, postMessage } from './messages.js';

const EXAMPLE_ID = '00000000-0000-4000-8000-000000000000';

export const Message = z
  .object({
    id: z.uuid(),
    author: z.enum(['researcher', 'company']).meta({ description: 'researcher: written through the private status link (untrusted text); company: a reply.' }),
    authorId: z.string().nullable().meta({ description: 'The company user or API key that replied; null for the researcher.' }),
    body: z.string(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'ReportMessage' });

/** The thread with the researcher over the API: read it, and reply (the researcher sees replies on the status page). */
export const messageOperations: Operation[] = [
  defineOperation({
    name: 'reports.messages.list',
    summary: 'The message thread between the researcher and the company, oldest first',
    scope: 'read',
    method: 'GET',
    path: '/vulnerabilities/:id/messages',
    output: z.array(Message).meta({ id: 'ReportMessages' }),
    example: { params: { id: EXAMPLE_ID } },
    handler: async ({ db, companyId, params }) => {
      const r = await getReport(db, companyId, params.id);
      return { status: 200, body: await listMessages(db, companyId, r.submissionId) };
    },
  }),
  defineOperation({
    name: 'reports.messages.post',
    statuses: [201],
    summary: 'Reply to the researcher; shown on their private status page and sent as a vulnerability.message event',
    scope: 'triage:write',
    method: 'POST',
    path: '/vulnerabilities/:id/messages',
    input: MessageInput,
    output: Message,
    example: { params: { id: EXAMPLE_ID }, body: { body: 'Thanks, we reproduced it; a fix is planned for firmware 2.6.' } },
    handler: async ({ db, ctx, companyId, params }, body) => {
      const m = await postMessage(db, ctx, companyId, params.id, 'company', body);
      return { status: 201, body: m };
    },
  }),
];
