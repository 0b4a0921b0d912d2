import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { isAppError } from '../../kernel/errors.js';
import { asSystem } from '../../db/tenant-scope.js';
import { readAttachment } from '../../modules/cases/case-attachments.js';
import { attachmentDownload } from '../../modules/cases/case-attachments.operations.js';
import type { OperationResult } from '../../modules/operations/operation.js';
import { acknowledgeCase, answerEmbargo, inboundParticipant, postSharedMessage, sharedCase } from '../../modules/cases/shared-thread.js';
import { MESSAGE_LABELS, type SharedCaseState, sharedCaseBody } from '../coordination/shared-case-page.js';
import { html } from '../html.js';
import { CASES_PATH } from './cases-page.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { textField } from '../form-fields.js';
import { fieldSentences } from '../issue-sentences.js';
import { formAttachments } from '../attachment-forms.js';

type Req = FastifyRequest<{ Params: { id: string } }>;
type Body = Record<string, unknown>;

/** A file download as the operation answers it (attachment, nosniff, its digest), from a dashboard route. */
export const sendAttachment = (reply: FastifyReply, r: OperationResult) =>
  reply
    .headers(r.headers ?? {})
    .type(r.contentType ?? 'application/octet-stream')
    .send(r.body);

const base = (req: Req) => `${CASES_PATH}/inbound/${req.params.id}`;
const door = (req: Req) => ({ kind: 'company' as const, companyId: req.session.company.id });

async function render(app: FastifyInstance, req: Req, reply: FastifyReply, status: number, st: SharedCaseState = {}) {
  const db = app.deps.database.db;
  const p = await inboundParticipant(db, req.session.company.id, req.params.id);
  const s = await sharedCase(db, p);
  const body = sharedCaseBody(s, base(req), st, csrfField(req.session), sessionMay(req.session, 'triage'));
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(
      dashboardPage({
        title: s.title,
        session: req.session,
        current: CASES_PATH,
        body: html`<p><a href="${CASES_PATH}">Cases</a>${s.peerReportId ? html` · <a href="/reports/${s.peerReportId}">the report in your inbox</a>` : ''}</p>
${body}`,
      }),
    );
}

/** One answer form of an inbound case: run it, then back to the case (303), or the case again with the problem and what was typed. */
function answer(app: FastifyInstance, path: string, run: (req: Req, b: Body) => Promise<unknown>, keep: (b: Body) => SharedCaseState) {
  app.post<{ Params: { id: string } }>(`${CASES_PATH}/inbound/:id${path}`, async (req, reply) => {
    const b = (req.body ?? {}) as Body;
    try {
      await run(req, b);
    } catch (e) {
      if (!isAppError(e) || (e.code !== 'VALIDATION' && e.code !== 'CONFLICT')) throw e;
      const errors = fieldSentences(e.extra.issues ?? [], MESSAGE_LABELS);
      return render(app, req, reply, e.code === 'CONFLICT' ? 409 : 400, { ...keep(b), errors, notice: { kind: 'bad', text: e.message } });
    }
    return reply.redirect(base(req), 303);
  });
}

const participant = (app: FastifyInstance, req: Req) => inboundParticipant(app.deps.database.db, req.session.company.id, req.params.id);

/**
 * A case of another company on this instance that notified this one, as this company's team sees
 * it: the same shared view as the participant link, answered with the team's session. Viewers read;
 * the forms are shown (and the routes allowed) to the triage roles only. Its message form, which
 * carries files, is mounted by the caller where the multipart parser lives (inboundMessageRoute).
 */
export function inboundCaseRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  app.get<{ Params: { id: string } }>(`${CASES_PATH}/inbound/:id`, async (req, reply) => render(app, req, reply, 200));
  app.get<{ Params: { id: string; attachmentId: string } }>(`${CASES_PATH}/inbound/:id/attachments/:attachmentId`, async (req, reply) => {
    const p = await participant(app, req);
    return sendAttachment(reply, attachmentDownload(await asSystem(() => readAttachment(db, p.companyId, p.caseId, req.params.attachmentId, p.id))));
  });
  answer(
    app,
    '/acknowledge',
    async (req) => acknowledgeCase(db, ctxOf(req), await participant(app, req), door(req)),
    () => ({}),
  );
  answer(
    app,
    '/embargo',
    async (req, b) =>
      answerEmbargo(db, ctxOf(req), await participant(app, req), door(req), {
        response: textField(b.response),
        ...(textField(b.until) ? { until: textField(b.until) } : {}),
      }),
    (b) => ({ counter: textField(b.until) }),
  );
}

/** The message form of an inbound case (text and files). */
export function inboundMessageRoute(uploads: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  answer(
    uploads,
    '/messages',
    async (req, b) =>
      postSharedMessage(uploads.deps.database.db, ctxOf(req), await participant(uploads, req), { body: textField(b.body) }, formAttachments(req)),
    (b) => ({ draft: textField(b.body) }),
  );
}
