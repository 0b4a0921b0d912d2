import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { siteUrl } from '../../config.js';
import type { Context } from '../../kernel/context.js';
import { type AppError, isAppError } from '../../kernel/errors.js';
import { addParticipant } from '../../modules/cases/add-participant.js';
import { endEmbargo, proposeEmbargo } from '../../modules/cases/case-embargo.js';
import { listCaseMessages, postCaseMessage } from '../../modules/cases/case-messages.js';
import { listNotices, prepareNotices } from '../../modules/cases/case-notices.js';
import { addCaseFix, listCaseFixes } from '../../modules/cases/case-fixes.js';
import type { NoticeView } from '../../modules/cases/cases.schemas.js';
import { confirmNotices } from '../../modules/cases/confirm-notices.js';
import { coordinatorPack } from '../../modules/cases/coordinator-pack.js';
import { getCase, listCases } from '../../modules/cases/get-case.js';
import { openCase } from '../../modules/cases/open-case.js';
import { listInbound } from '../../modules/cases/shared-thread.js';
import { updateParticipant } from '../../modules/cases/update-participant.js';
import { CASES_PATH, casePage, casesPage } from './cases-page.js';
import { inboundCaseRoutes, inboundMessageRoute, sendAttachment } from './inbound-case-routes.js';
import { acceptAttachmentForms, formAttachments } from '../attachment-forms.js';
import { signedInUploadGate } from './upload-gate.js';
import { MESSAGE_LABELS } from '../coordination/shared-case-page.js';
import { attachmentDownload } from '../../modules/cases/case-attachments.operations.js';
import { readAttachment } from '../../modules/cases/case-attachments.js';
import { listField, textField } from '../form-fields.js';
import { issueSentence, issuesSentences } from '../issue-sentences.js';
import { reportsOpenedByCradle } from '../../modules/known-vulns/awareness.js';

const HTML = 'text/html; charset=utf-8';
type Body = Record<string, unknown>;
type IdReq = FastifyRequest<{ Params: { id: string }; Querystring: { done?: string } }>;

const DONE: Record<string, string> = {
  participant: 'The participant was added.',
  sent: 'The notices were sent.',
  embargo: 'The embargo date was proposed; every participant is asked again.',
  ended: 'The embargo was ended.',
  message: 'Message sent.',
  status: 'Status recorded.',
  opened: 'The case was opened.',
  fix: 'The fix was attached; upstream maintainers see it through their link or inbound case.',
};

/** The field of the add-participant form a one-box address stands for. */
export function addressInput(address: string): Record<string, string> {
  const a = address.trim();
  if (/^https?:\/\//i.test(a)) return { repositoryUrl: a };
  if (a.includes('@')) return { email: a };
  return { companySlug: a };
}

const fieldErrors = (e: AppError, rename: Record<string, string> = {}, labels: Record<string, string> = {}): Record<string, string> =>
  Object.fromEntries((e.extra.issues ?? []).map((i) => [rename[i.path] ?? i.path.split('.')[0] ?? '', issueSentence(i, labels)]));

/**
 * The Cases pages (issue 34), inside the signed-in dashboard plugin (sign-in, same-origin, CSRF and
 * the route's role come first: route-access.ts). Each action calls the verb the REST API calls.
 */
export function casesDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type(HTML).send(body);

  app.get(CASES_PATH, async (req, reply) => {
    const id = req.session.company.id;
    const [cases, inbound] = await Promise.all([listCases(db, id), listInbound(db, id)]);
    return send(reply, casesPage(req.session, cases, inbound));
  });

  app.post(CASES_PATH, async (req, reply) => {
    const b = (req.body ?? {}) as Body;
    const reportIds = listField(b.reportId);
    try {
      const c = await openCase(db, ctxOf(req), req.session.company.id, { title: textField(b.title), ...(reportIds.length ? { reportIds } : {}) });
      return reply.redirect(`${CASES_PATH}/${c.id}?done=opened`, 303);
    } catch (e) {
      if (!isAppError(e) || e.code !== 'VALIDATION') throw e;
      const id = req.session.company.id;
      const [cases, inbound] = await Promise.all([listCases(db, id), listInbound(db, id)]);
      return send(
        reply,
        casesPage(
          req.session,
          cases,
          inbound,
          { kind: 'bad', text: 'Not opened: please correct the marked field.' },
          { title: textField(b.title) },
          fieldErrors(e),
        ),
        400,
      );
    }
  });

  const render = async (
    req: IdReq,
    reply: FastifyReply,
    status: number,
    extra: { prepared?: NoticeView[]; notice?: { kind: 'ok' | 'bad'; text: string }; errors?: Record<string, string>; values?: Record<string, string> } = {},
  ) => {
    const companyId = req.session.company.id;
    const c = await getCase(db, companyId, req.params.id);
    const [notices, messages, fixes, selfOpened] = await Promise.all([
      listNotices(db, companyId, c.id),
      listCaseMessages(db, companyId, c.id),
      listCaseFixes(db, companyId, c.id),
      reportsOpenedByCradle(db, companyId, c.reportIds),
    ]);
    const done = req.query.done ? DONE[req.query.done] : undefined;
    return send(
      reply,
      casePage(req.session, { c, notices, messages, fixes, selfOpened, ...(done && !extra.notice ? { notice: { kind: 'ok', text: done } } : {}), ...extra }),
      status,
    );
  };

  app.get<{ Params: { id: string }; Querystring: { done?: string } }>(`${CASES_PATH}/:id`, async (req, reply) => render(req, reply, 200));

  // The pack for a coordinator (docs/coordination.md "Reminders and escalation"), the verb the API's download calls.
  app.get<{ Params: { id: string } }>(`${CASES_PATH}/:id/coordinator-pack`, async (req, reply) => {
    const pack = await coordinatorPack(db, req.session.company.id, req.params.id);
    return reply
      .type('application/json; charset=utf-8')
      .header('content-disposition', `attachment; filename="case-${pack.case.id}-coordinator-pack.json"`)
      .send(JSON.stringify(pack, null, 2));
  });

  /** One action form: run the verb, then back to the case (303), or the case again with the problem and the typed values. */
  const action = (
    path: string,
    done: string,
    run: (req: IdReq, b: Body) => Promise<unknown>,
    rename: Record<string, string> = {},
    labels: Record<string, string> = {},
    on: FastifyInstance = app,
  ) =>
    on.post<{ Params: { id: string }; Querystring: { done?: string } }>(`${CASES_PATH}/:id${path}`, async (req, reply) => {
      const b = (req.body ?? {}) as Body;
      try {
        await run(req, b);
      } catch (e) {
        if (!isAppError(e) || e.code === 'NOT_FOUND') throw e;
        const status = e.code === 'VALIDATION' ? 400 : e.code === 'CONFLICT' ? 409 : e.code === 'UNPROCESSABLE' ? 422 : 403;
        const values = Object.fromEntries(Object.entries(b).flatMap(([k, v]) => (typeof v === 'string' && k !== '_csrf' ? [[k, v]] : [])));
        const detail = e.extra.issues?.length ? issuesSentences(e.extra.issues, labels) : e.message;
        return render(req, reply, status, { notice: { kind: 'bad', text: `Not done: ${detail}` }, errors: fieldErrors(e, rename, labels), values });
      }
      return reply.redirect(`${CASES_PATH}/${req.params.id}?done=${done}`, 303);
    });

  const companyOf = (req: FastifyRequest) => req.session.company.id;
  action(
    '/participants',
    'participant',
    (req, b) =>
      addParticipant(db, ctxOf(req), companyOf(req), req.params.id, {
        role: textField(b.role),
        ...addressInput(textField(b.address)),
        ...(textField(b.pgpKey).trim() ? { pgpKey: textField(b.pgpKey) } : {}),
      }),
    { companySlug: 'address', email: 'address', repositoryUrl: 'address' },
  );
  action('/notices/confirm', 'sent', (req, b) =>
    confirmNotices(db, ctxOf(req), companyOf(req), req.params.id, { noticeIds: listField(b.noticeIds) }, { siteUrl: siteUrl(app.deps.config) }),
  );
  action('/embargo', 'embargo', (req, b) => proposeEmbargo(db, ctxOf(req), companyOf(req), req.params.id, { until: textField(b.until) }));
  action('/embargo/end', 'ended', (req, b) => endEmbargo(db, ctxOf(req), companyOf(req), req.params.id, { reason: textField(b.reason) }));
  // The message forms carry files: their own child, where the multipart parser and its early check live.
  void app.register(async (uploads) => {
    await acceptAttachmentForms(uploads, signedInUploadGate);
    action(
      '/messages',
      'message',
      (req, b) =>
        postCaseMessage(
          db,
          ctxOf(req),
          companyOf(req),
          req.params.id,
          { participantId: textField(b.participantId), body: textField(b.body) },
          formAttachments(req),
        ),
      {},
      MESSAGE_LABELS,
      uploads,
    );
    inboundMessageRoute(uploads, ctxOf);
  });
  app.get<{ Params: { id: string; attachmentId: string } }>(`${CASES_PATH}/:id/attachments/:attachmentId`, async (req, reply) =>
    sendAttachment(reply, attachmentDownload(await readAttachment(db, companyOf(req), req.params.id, req.params.attachmentId))),
  );
  action(
    '/fixes',
    'fix',
    (req, b) =>
      addCaseFix(db, ctxOf(req), companyOf(req), req.params.id, {
        kind: textField(b.fixKind),
        body: textField(b.fixBody),
        osvDraft: textField(b.osvDraft) === 'yes',
      }),
    { kind: 'fixKind', body: 'fixBody' },
    { kind: 'Kind', body: 'The patch or description', osvDraft: 'The OSV draft' },
  );
  action('/participant-status', 'status', (req, b) =>
    updateParticipant(db, ctxOf(req), companyOf(req), req.params.id, textField(b.participantId), { status: textField(b.status) }),
  );

  // Preparing answers with the page showing what would go out; nothing is sent until the confirm form.
  app.post<{ Params: { id: string }; Querystring: { done?: string } }>(`${CASES_PATH}/:id/notices`, async (req, reply) => {
    try {
      const prepared = await prepareNotices(db, ctxOf(req), companyOf(req), req.params.id, {});
      return render(req, reply, 200, { prepared });
    } catch (e) {
      if (!isAppError(e) || e.code === 'NOT_FOUND') throw e;
      return render(req, reply, e.code === 'VALIDATION' ? 400 : e.code === 'CONFLICT' ? 409 : 422, {
        notice: { kind: 'bad', text: `Nothing prepared: ${e.message}` },
      });
    }
  });

  inboundCaseRoutes(app, ctxOf);
}
