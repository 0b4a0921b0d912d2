import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addressBucket } from '../../http/client-address.js';
import { clearSessionCookie } from '../../http/session-auth.js';
import type { Context } from '../../kernel/context.js';
import { type AppError, isAppError } from '../../kernel/errors.js';
import { setRequireSecondFactor } from '../../modules/companies/security-policy.js';
import { endAccountSession, endAllAccountSessions, listAccountSessions } from '../../modules/sessions/account-sessions.js';
import { changePassword } from '../../modules/users/change-password.js';
import { unusedRecoveryCodes } from '../../modules/users/recovery-codes.js';
import {
  type AccountEnv,
  confirmTotpEnrolment,
  disableSecondFactor,
  hasPendingEnrolment,
  type Person,
  regenerateRecoveryCodes,
  startTotpEnrolment,
} from '../../modules/users/second-factor.js';
import { ACCOUNT_PATH, accountPage, type Notice } from './account-page.js';
import { SECOND_FACTOR_PATH, secondFactorPage, type SecondFactorState } from './second-factor-page.js';
import { textField } from '../form-fields.js';
import { fieldSentences } from '../issue-sentences.js';

const bodyOf = (req: FastifyRequest): Record<string, unknown> => (req.body ?? {}) as Record<string, unknown>;
const personOf = (req: FastifyRequest): Person => ({ id: req.session.user.id, companyId: req.session.company.id, email: req.session.user.email });
const bucketOf = (req: FastifyRequest): string => addressBucket(req.ip ?? 'unknown');
const passwordOf = (req: FastifyRequest): string => textField(bodyOf(req).password).slice(0, 1024);
const errorsOf = (e: AppError): Record<string, string> => fieldSentences(e.extra.issues ?? []);
const statusOf = (e: AppError): number => ({ VALIDATION: 400, RATE_LIMITED: 429, CONFLICT: 409, FORBIDDEN: 403 })[e.code as string] ?? 400;
const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

/**
 * The signed-in person's own account (`/account`, `/account/second-factor`). Form refusals re-render
 * the page with the message and store nothing; secrets are never echoed into a form.
 */
export function accountDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const db = app.deps.database.db;
  const envOf = (req: FastifyRequest): AccountEnv => ({ address: bucketOf(req), mail: app.deps.config.mail !== undefined });

  const account = async (req: FastifyRequest, reply: FastifyReply, o: { notice?: Notice; errors?: Record<string, string>; status?: number } = {}) =>
    sendHtml(reply, accountPage({ session: req.session, sessions: await listAccountSessions(db, req.session), ...o }), o.status);

  const state = async (req: FastifyRequest, extra: Partial<SecondFactorState> = {}): Promise<SecondFactorState> => ({
    pending: !req.session.user.secondFactor && (await hasPendingEnrolment(db, personOf(req))),
    recoveryCodesLeft: await unusedRecoveryCodes(db, req.session.user.id),
    ...extra,
  });
  const secondFactor = async (
    req: FastifyRequest,
    reply: FastifyReply,
    o: { state?: Partial<SecondFactorState>; notice?: Notice; errors?: Record<string, string>; status?: number } = {},
  ) => sendHtml(reply, secondFactorPage({ session: req.session, state: await state(req, o.state), notice: o.notice, errors: o.errors }), o.status);

  /** Runs a form's verb; an AppError re-renders the page with its message (5xx and others go on up). */
  const refusal = (e: unknown, reply: FastifyReply) => {
    if (!isAppError(e) || !['VALIDATION', 'RATE_LIMITED', 'CONFLICT', 'FORBIDDEN'].includes(e.code)) throw e;
    if (e.extra.retryAfterSeconds !== undefined) reply.header('retry-after', String(e.extra.retryAfterSeconds));
    const errors = errorsOf(e);
    const first = Object.values(errors)[0];
    return {
      errors,
      status: statusOf(e),
      notice: { kind: 'bad' as const, text: e.code === 'VALIDATION' ? `Please correct the marked field${first ? `: ${first}` : ''}.` : e.message },
    };
  };

  app.get(ACCOUNT_PATH, async (req, reply) => {
    const q = req.query as Record<string, string | undefined>;
    const notice: Notice = q.changed
      ? { kind: 'ok', text: `Your password was changed; ${q.changed} other session(s) ended.` }
      : q.ended
        ? { kind: 'ok', text: 'The session was ended.' }
        : q.saved
          ? { kind: 'ok', text: 'Saved.' }
          : undefined;
    return account(req, reply, { notice });
  });

  app.post(`${ACCOUNT_PATH}/password`, async (req, reply) => {
    const b = bodyOf(req);
    try {
      const ended = await changePassword(
        db,
        ctxOf(req),
        req.session,
        { currentPassword: textField(b.currentPassword), newPassword: textField(b.newPassword) },
        bucketOf(req),
      );
      return reply.redirect(`${ACCOUNT_PATH}?changed=${ended}`, 303);
    } catch (e) {
      return account(req, reply, refusal(e, reply));
    }
  });

  app.post<{ Params: { id: string } }>(`${ACCOUNT_PATH}/sessions/:id/end`, async (req, reply) => {
    await endAccountSession(db, ctxOf(req), req.session, req.params.id);
    if (req.params.id === req.session.id) {
      clearSessionCookie(reply, app.deps.config);
      return reply.redirect('/login', 303);
    }
    return reply.redirect(`${ACCOUNT_PATH}?ended=1`, 303);
  });

  app.post(`${ACCOUNT_PATH}/sessions/end-all`, async (req, reply) => {
    await endAllAccountSessions(db, ctxOf(req), req.session);
    clearSessionCookie(reply, app.deps.config);
    return reply.redirect('/login', 303);
  });

  app.post(`${ACCOUNT_PATH}/security-policy`, async (req, reply) => {
    await setRequireSecondFactor(db, ctxOf(req), req.session.company.id, textField(bodyOf(req).requireSecondFactor) === 'on');
    return reply.redirect(`${ACCOUNT_PATH}?saved=1`, 303);
  });

  app.get(SECOND_FACTOR_PATH, async (req, reply) => secondFactor(req, reply));

  app.post(`${SECOND_FACTOR_PATH}/start`, async (req, reply) => {
    try {
      // The seed is shown in this answer only (never again on reload): see startTotpEnrolment.
      const enrolment = await startTotpEnrolment(db, personOf(req), passwordOf(req), bucketOf(req));
      return secondFactor(req, reply, { state: { enrolment } });
    } catch (e) {
      return secondFactor(req, reply, refusal(e, reply));
    }
  });

  app.post(`${SECOND_FACTOR_PATH}/confirm`, async (req, reply) => {
    try {
      const codes = await confirmTotpEnrolment(db, ctxOf(req), personOf(req), textField(bodyOf(req).code).slice(0, 64), envOf(req));
      req.session = { ...req.session, user: { ...req.session.user, secondFactor: true } };
      return secondFactor(req, reply, { state: { newCodes: codes }, notice: { kind: 'ok', text: 'The second factor is on.' } });
    } catch (e) {
      return secondFactor(req, reply, refusal(e, reply));
    }
  });

  app.post(`${SECOND_FACTOR_PATH}/recovery-codes`, async (req, reply) => {
    try {
      const codes = await regenerateRecoveryCodes(db, ctxOf(req), personOf(req), passwordOf(req), envOf(req));
      return secondFactor(req, reply, { state: { newCodes: codes } });
    } catch (e) {
      return secondFactor(req, reply, refusal(e, reply));
    }
  });

  app.post(`${SECOND_FACTOR_PATH}/disable`, async (req, reply) => {
    const b = bodyOf(req);
    try {
      const input = { password: passwordOf(req), code: textField(b.code).slice(0, 64), required: req.session.company.requireSecondFactor };
      await disableSecondFactor(db, ctxOf(req), personOf(req), input, envOf(req));
      req.session = { ...req.session, user: { ...req.session.user, secondFactor: false } };
      return secondFactor(req, reply, { notice: { kind: 'ok', text: 'The second factor is off.' } });
    } catch (e) {
      return secondFactor(req, reply, refusal(e, reply));
    }
  });
}

/** What a member who must still set up a second factor may reach (everything else sends them here). */
export const ENROLMENT_ROUTES: ReadonlySet<string> = new Set([
  `GET ${SECOND_FACTOR_PATH}`,
  `POST ${SECOND_FACTOR_PATH}/start`,
  `POST ${SECOND_FACTOR_PATH}/confirm`,
]);
