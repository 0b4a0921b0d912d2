import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AppError, ErrorCode } from '../kernel/errors.js';
import { asSystem, openRequestScope } from '../db/tenant-scope.js';
import { safeEqual } from '../kernel/ids.js';
import { loadSession, mustEnrolSecondFactor, SESSION_ABSOLUTE_MS, type SessionView } from '../modules/sessions/sessions.js';
import { parseCookies, serializeCookie } from './cookies.js';

const secure = (c: Config): boolean => c.publicUrl.protocol === 'https:';

/**
 * `__Host-` on https: the browser then insists on Secure, Path=/ and no Domain, so a portal
 * subdomain (`{slug}.{site}`, which serves company-controlled text) can never set or shadow it.
 */
export const sessionCookieName = (c: Config): string => (secure(c) ? '__Host-cradle_session' : 'cradle_session');
export const loginCookieName = (c: Config): string => (secure(c) ? '__Host-cradle_login' : 'cradle_login');

/** Lax so a link into the dashboard keeps the user signed in; every state change also checks a token. */
export function setSessionCookie(reply: FastifyReply, c: Config, token: string): void {
  reply.header('set-cookie', serializeCookie(sessionCookieName(c), token, { secure: secure(c), sameSite: 'Lax', maxAgeSeconds: SESSION_ABSOLUTE_MS / 1000 }));
}
export function clearSessionCookie(reply: FastifyReply, c: Config): void {
  reply.header('set-cookie', serializeCookie(sessionCookieName(c), '', { secure: secure(c), sameSite: 'Lax', maxAgeSeconds: 0 }));
}
export function setLoginCookie(reply: FastifyReply, c: Config, value: string): void {
  reply.header('set-cookie', serializeCookie(loginCookieName(c), value, { secure: secure(c), sameSite: 'Strict', maxAgeSeconds: 3600 }));
}
export const cookieValue = (req: FastifyRequest, name: string): string | undefined => parseCookies(req.headers.cookie)[name];

/**
 * The signed-in session, or undefined. An API key is never a session (an API key gets 401: docs/access.md "API keys").
 * The session is found by its token's digest before its company is known; once found, the request
 * sees that company's rows only.
 */
export async function currentSession(req: FastifyRequest): Promise<SessionView | undefined> {
  const { config, database } = req.server.deps;
  const session = await asSystem(() => loadSession(database.db, cookieValue(req, sessionCookieName(config))));
  if (session) openRequestScope(session.company.id);
  // Offboarding (docs/backup.md): while a deletion is pending no member can use the dashboard.
  if (session?.company.suspended) throw new AppError(ErrorCode.FORBIDDEN, 'your company is suspended: the operator has scheduled its deletion');
  return session;
}

export async function requireSession(req: FastifyRequest): Promise<SessionView> {
  if (req.headers.authorization !== undefined) {
    throw new AppError(ErrorCode.UNAUTHENTICATED, 'this endpoint takes a signed-in dashboard session, never an API key');
  }
  const s = await currentSession(req);
  if (!s) throw new AppError(ErrorCode.UNAUTHENTICATED, 'sign in first (POST /api/session)');
  if (mustEnrolSecondFactor(s)) {
    throw new AppError(ErrorCode.FORBIDDEN, 'your company requires a second factor: set one up on /account/second-factor first');
  }
  return s;
}

/**
 * Cross-site request forgery defence shared by JSON endpoints and forms: a browser sends Origin on
 * every cross-origin POST, so when present it must be our own. Our pages send
 * `Referrer-Policy: no-referrer`, under which browsers send `Origin: null` even for our own forms;
 * "null" therefore proves nothing either way and the decision falls to `Sec-Fetch-Site` (sent by
 * current browsers) and to the form's CSRF token (always). JSON endpoints stay safe without a token
 * because a cross-origin JSON POST needs a CORS preflight, which we never grant.
 */
export function assertSameOrigin(req: FastifyRequest): void {
  const own = req.server.deps.config.publicUrl.origin;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null' && origin !== own) {
    throw new AppError(ErrorCode.FORBIDDEN, `requests from origin ${origin.slice(0, 100)} are not accepted`);
  }
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') throw new AppError(ErrorCode.FORBIDDEN, 'cross-site requests are not accepted');
}

/** State-changing session requests carry a JSON body content type (forms cannot send one): docs/access.md "Cross-site request forgery". */
export function assertJsonBody(req: FastifyRequest): void {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'send the body as application/json');
}

/** Form posts: the hidden `_csrf` field must equal the session's token. */
export function assertCsrf(session: SessionView, body: unknown): void {
  const given = (body as Record<string, unknown> | null)?._csrf;
  if (typeof given !== 'string' || !safeEqual(given, session.csrfToken)) {
    throw new AppError(ErrorCode.FORBIDDEN, 'the form has expired or did not come from this site; reload the page and try again');
  }
}
