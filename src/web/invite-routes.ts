import type { FastifyInstance, FastifyReply } from 'fastify';
import { asSystem } from '../db/tenant-scope.js';
import { requestContext } from '../http/request-context.js';
import { assertSameOrigin, cookieValue, loginCookieName, setLoginCookie, setSessionCookie } from '../http/session-auth.js';
import { isAppError } from '../kernel/errors.js';
import { randomHex, safeEqual } from '../kernel/ids.js';
import { acceptInvitation, InvitationUnusable, lookupInvitation } from '../modules/team/accept-invitation.js';
import { invitePage, inviteUnusablePage } from './pages/invite-page.js';
import { addressBucket } from '../http/client-address.js';
import { optionalField } from './form-fields.js';
import { fieldSentences } from './issue-sentences.js';

/**
 * `/invite/{token}`: the public page where an invited person chooses a password and joins. No
 * session exists yet, so the form carries a double-submit CSRF token like the sign-in form. The
 * link names no company, so its lookup runs across companies (as system, like sign-in) and then
 * shows only that invitation's company, address and role. Unknown link 404, an address that already
 * has an account 409 (told to its holder only: the inviter's answer never says so), used, withdrawn
 * or expired 410; nothing is created then.
 */
export async function inviteRoutes(app: FastifyInstance): Promise<void> {
  const { config, database } = app.deps;
  const db = database.db;
  const send = (reply: FastifyReply, body: string, status = 200) =>
    reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(body);
  const gone = (reply: FastifyReply, state: InvitationUnusable['state']) =>
    send(reply, inviteUnusablePage(state), state === 'unknown' ? 404 : state === 'taken' ? 409 : 410);
  const form = async (reply: FastifyReply, token: string, status: number, o: { errors?: Record<string, string>; formError?: string } = {}) => {
    const found = await asSystem(() => lookupInvitation(db, token));
    if (found.state !== 'pending') return gone(reply, found.state);
    const csrf = randomHex(16);
    setLoginCookie(reply, config, csrf);
    return send(reply, invitePage({ invitation: found, path: `/invite/${token}`, csrf, ...o }), status);
  };

  app.get<{ Params: { token: string } }>('/invite/:token', async (req, reply) => form(reply, req.params.token, 200));

  app.post<{ Params: { token: string } }>('/invite/:token', async (req, reply) => {
    assertSameOrigin(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const cookie = cookieValue(req, loginCookieName(config));
    const given = optionalField(body._csrf);
    if (!cookie || !given || !safeEqual(cookie, given))
      return form(reply, req.params.token, 403, { formError: 'The form expired. Please choose your password again.' });
    try {
      const ctx = requestContext(req, { type: 'public' });
      const origin = { address: addressBucket(req.ip ?? 'unknown'), userAgent: ctx.userAgent };
      const joined = await asSystem(() => acceptInvitation(db, ctx, req.params.token, { password: body.password }, { origin }));
      setSessionCookie(reply, config, joined.session.token);
      return reply.redirect('/dashboard', 303);
    } catch (e) {
      if (e instanceof InvitationUnusable) return gone(reply, e.state);
      if (!isAppError(e) || (e.code !== 'VALIDATION' && e.code !== 'CONFLICT')) throw e;
      const errors = fieldSentences(e.extra.issues ?? []);
      return form(reply, req.params.token, e.code === 'VALIDATION' ? 400 : 409, {
        errors,
        formError: e.code === 'VALIDATION' ? 'Please choose a password as described below.' : `${e.message}.`,
      });
    }
  });
}
