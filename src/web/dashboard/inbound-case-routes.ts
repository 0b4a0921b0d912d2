import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../kernel/context.js';
import { isAppError } from '../../kernel/errors.js';
import { acknowledgeCase, answerEmbargo, inboundParticipant, postSharedMessage, sharedCase } from '../../modules/cases/shared-thread.js';
import { type SharedCaseState, sharedCaseBody } from '../coordination/shared-case-page.js';
import { html } from '../html.js';
import { CASES_PATH } from './cases-page.js';
import { csrfField, dashboardPage, sessionMay } from './dashboard-layout.js';
import { textField } from '../form-fields.js';
import { fieldSentences } from '../issue-sentences.js';

type Req = FastifyRequest<{ Params: { id: string } }>;

/**
 * A case of another company on this instance that notified this one, as this company's team sees
 * it: the same shared view as the participant link, answered with the team's session. Viewers read;
 * the forms are shown (and the routes allowed) to the triage roles only.
 */
export function inboundCaseRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  const base = (req: Req) => `${CASES_PATH}/inbound/${req.params.id}`;

  const render = async (req: Req, reply: FastifyReply, status: number, st: SharedCaseState = {}) => {
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
  };

  app.get<{ Params: { id: string } }>(`${CASES_PATH}/inbound/:id`, async (req, reply) => render(req, reply, 200));

  const answer = (path: string, run: (req: Req, b: Record<string, unknown>) => Promise<unknown>, keep: (b: Record<string, unknown>) => SharedCaseState) =>
    app.post<{ Params: { id: string } }>(`${CASES_PATH}/inbound/:id${path}`, async (req, reply) => {
      const b = (req.body ?? {}) as Record<string, unknown>;
      try {
        await run(req, b);
      } catch (e) {
        if (!isAppError(e) || (e.code !== 'VALIDATION' && e.code !== 'CONFLICT')) throw e;
        const errors = fieldSentences(e.extra.issues ?? []);
        return render(req, reply, e.code === 'CONFLICT' ? 409 : 400, { ...keep(b), errors, notice: { kind: 'bad', text: e.message } });
      }
      return reply.redirect(base(req), 303);
    });

  const door = (req: Req) => ({ kind: 'company' as const, companyId: req.session.company.id });
  const participant = (req: Req) => inboundParticipant(db, req.session.company.id, req.params.id);
  answer(
    '/acknowledge',
    async (req) => acknowledgeCase(db, ctxOf(req), await participant(req), door(req)),
    () => ({}),
  );
  answer(
    '/embargo',
    async (req, b) =>
      answerEmbargo(db, ctxOf(req), await participant(req), door(req), {
        response: textField(b.response),
        ...(textField(b.until) ? { until: textField(b.until) } : {}),
      }),
    (b) => ({ counter: textField(b.until) }),
  );
  answer(
    '/messages',
    async (req, b) => postSharedMessage(db, ctxOf(req), await participant(req), { body: textField(b.body) }),
    (b) => ({ draft: textField(b.body) }),
  );
}
