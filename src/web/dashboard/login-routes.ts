import { asSystem } from '../../db/tenant-scope.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { addressBucket } from '../../http/client-address.js';
import { requestContext } from '../../http/request-context.js';
import {
  assertCsrf,
  assertSameOrigin,
  clearSessionCookie,
  cookieValue,
  currentSession,
  loginCookieName,
  setLoginCookie,
  setSessionCookie,
} from '../../http/session-auth.js';
import { isAppError } from '../../kernel/errors.js';
import { randomHex, safeEqual } from '../../kernel/ids.js';
import { endSession } from '../../modules/sessions/sessions.js';
import { completeSecondFactor, type SessionStarted, signIn } from '../../modules/users/sign-in.js';
import { loginPage, secondFactorPage } from './login-page.js';
import { optionalField } from '../form-fields.js';

/** Only a local path may follow sign-in (no `//host` or `/\host`): no open redirect. */
export const safeNext = (v: string | undefined): string | undefined => (v && /^\/(?![/\\])[\x21-\x7e]*$/.test(v) && v.length <= 512 ? v : undefined);

/**
 * The sign-in form. Before a session exists there is no session token to tie a form to, so the
 * form's CSRF token is a double-submit: a random value in a Strict cookie and in a hidden field.
 */
export async function loginRoutes(app: FastifyInstance): Promise<void> {
  const { config, database } = app.deps;

  const showForm = (reply: FastifyReply, status: number, o: { email?: string; next?: string; error?: string }) => {
    const csrf = randomHex(16);
    setLoginCookie(reply, config, csrf);
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(loginPage({ csrf, ...o }));
  };

  app.get<{ Querystring: { next?: string } }>('/login', async (req, reply) => {
    const next = safeNext(optionalField(req.query.next));
    if (await currentSession(req)) return reply.redirect(next ?? '/dashboard', 303);
    return showForm(reply, 200, { next });
  });

  const showCodeForm = (reply: FastifyReply, status: number, o: { pending: string; next?: string | undefined; error?: string }) => {
    const csrf = randomHex(16);
    setLoginCookie(reply, config, csrf);
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(secondFactorPage({ csrf, ...o }));
  };

  /** The double-submit check of both sign-in forms: the hidden field must equal the Strict cookie. */
  const formIsOurs = (req: FastifyRequest, body: Record<string, unknown>): boolean => {
    const cookie = cookieValue(req, loginCookieName(config));
    const given = optionalField(body._csrf);
    return Boolean(cookie && given && safeEqual(cookie, given));
  };

  const signedIn = (reply: FastifyReply, s: SessionStarted, next: string | undefined) => {
    setSessionCookie(reply, config, s.token);
    return reply.redirect(next ?? '/dashboard', 303);
  };

  app.post('/login', async (req, reply) => {
    assertSameOrigin(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = safeNext(optionalField(body.next));
    const email = optionalField(body.email)?.slice(0, 254);
    if (!formIsOurs(req, body)) {
      return showForm(reply, 403, { email, next, error: 'The form expired. Please sign in again.' });
    }
    try {
      // The account is found by its address across companies: the sign-in step runs as system.
      const s = await asSystem(() =>
        signIn(
          database.db,
          requestContext(req, { type: 'public' }),
          { email: email ?? '', password: optionalField(body.password) ?? '' },
          addressBucket(req.ip ?? 'unknown'),
          'form',
        ),
      );
      if (s.kind === 'second-factor') return showCodeForm(reply, 200, { pending: s.pendingToken, next });
      return signedIn(reply, s, next);
    } catch (e) {
      if (!isAppError(e)) throw e;
      if (e.code === 'RATE_LIMITED') reply.header('retry-after', String(e.extra.retryAfterSeconds ?? 900));
      const status = e.code === 'RATE_LIMITED' ? 429 : e.code === 'VALIDATION' ? 400 : 401;
      const error =
        e.code === 'VALIDATION'
          ? 'Enter your e-mail address and password.'
          : e.code === 'RATE_LIMITED'
            ? 'Too many failed sign-ins. Wait 15 minutes and try again.'
            : 'The e-mail address or password is wrong.';
      return showForm(reply, status, { email, next, error });
    }
  });

  app.post('/login/second-factor', async (req, reply) => {
    assertSameOrigin(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = safeNext(optionalField(body.next));
    const pending = optionalField(body.pending)?.slice(0, 64) ?? '';
    if (!formIsOurs(req, body)) return showForm(reply, 403, { next, error: 'The form expired. Please sign in again.' });
    try {
      const r = await asSystem(() =>
        completeSecondFactor(
          database.db,
          requestContext(req, { type: 'public' }),
          { pending, code: optionalField(body.code) ?? '' },
          addressBucket(req.ip ?? 'unknown'),
        ),
      );
      if (r.kind === 'session') return signedIn(reply, r, next);
      if (r.kind === 'expired') return showForm(reply, 401, { next, error: 'The sign-in expired or had too many wrong codes. Enter your password again.' });
      const left = r.triesLeft;
      if (left === 0) return showForm(reply, 401, { next, error: 'Too many wrong codes. Enter your password again.' });
      const why = r.reason === 'replayed code' ? 'That code was already used; wait for the next one.' : 'The code is wrong.';
      return showCodeForm(reply, 401, { pending, next, error: `${why} ${left} ${left === 1 ? 'try' : 'tries'} left.` });
    } catch (e) {
      if (!isAppError(e) || e.code !== 'RATE_LIMITED') throw e;
      reply.header('retry-after', String(e.extra.retryAfterSeconds ?? 900));
      return showForm(reply, 429, { next, error: 'Too many failed attempts. Wait 15 minutes and try again.' });
    }
  });

  app.post('/logout', async (req, reply) => {
    assertSameOrigin(req);
    const s = await currentSession(req);
    if (s) {
      assertCsrf(s, req.body);
      await endSession(database.db, requestContext(req, { type: 'user', id: s.user.id }), s);
    }
    clearSessionCookie(reply, config);
    return reply.redirect('/login', 303);
  });
}
