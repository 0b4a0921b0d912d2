import { asSystem } from '../../db/tenant-scope.js';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { addressBucket } from '../../http/client-address.js';
import { requestContext } from '../../http/request-context.js';
import { assertCsrf, assertSameOrigin, clearSessionCookie, cookieValue, currentSession, loginCookieName, setLoginCookie, setSessionCookie } from '../../http/session-auth.js';
import { isAppError } from '../../kernel/errors.js';
import { randomHex, safeEqual } from '../../kernel/ids.js';
import { endSession } from '../../modules/sessions/sessions.js';
import { signIn } from '../../modules/sessions/sign-in.js';
import { loginPage } from './login-page.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Only a local path may follow sign-in (no `//host` or `/\host`): no open redirect. */
export const safeNext = (v: string | undefined): string | undefined =>
  v && /^\/(?![/\\])[\x21-\x7e]*$/.test(v) && v.length <= 512 ? v : undefined;

/**
 * The sign-in form. Before a session exists there is no session token to tie a form to, so the
 * form's CSRF token is a double-submit: a random value in a Strict cookie and in a hidden field.
 */
export async function loginRoutes(app: FastifyInstance): Promise<void> {
  const { config, database } = app.deps;

  const showForm = (reply: FastifyReply, status: number, o: { email?: string; next?: string; error?: string }) => {
    const csrf = randomHex(16);
    setLoginCookie(reply, config, csrf);
    return reply.code(status).type('text/html; charset=utf-8').send(loginPage({ csrf, ...o }));
  };

  app.get<{ Querystring: { next?: string } }>('/login', async (req, reply) => {
    const next = safeNext(str(req.query.next));
    if (await currentSession(req)) return reply.redirect(next ?? '/dashboard', 303);
    return showForm(reply, 200, { next });
  });

  app.post('/login', async (req, reply) => {
    assertSameOrigin(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = safeNext(str(body.next));
    const email = str(body.email)?.slice(0, 254);
    const cookie = cookieValue(req, loginCookieName(config));
    const given = str(body._csrf);
    if (!cookie || !given || !safeEqual(cookie, given)) {
      return showForm(reply, 403, { email, next, error: 'The form expired. Please sign in again.' });
    }
    try {
      // The account is found by its address across companies: the sign-in step runs as system.
      const s = await asSystem(() => signIn(database.db, requestContext(req, { type: 'public' }), { email: email ?? '', password: str(body.password) ?? '' }, addressBucket(req.ip ?? 'unknown')));
      setSessionCookie(reply, config, s.token);
      return reply.redirect(next ?? '/dashboard', 303);
    } catch (e) {
      if (!isAppError(e)) throw e;
      if (e.code === 'RATE_LIMITED') reply.header('retry-after', String(e.extra.retryAfterSeconds ?? 900));
      const status = e.code === 'RATE_LIMITED' ? 429 : e.code === 'VALIDATION' ? 400 : 401;
      const error = e.code === 'VALIDATION' ? 'Enter your e-mail address and password.' : e.code === 'RATE_LIMITED' ? 'Too many failed sign-ins. Wait 15 minutes and try again.' : 'The e-mail address or password is wrong.';
      return showForm(reply, status, { email, next, error });
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
