import { isDatabaseUnavailable, isUnstorableText } from '../kernel/db-errors.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type AuthChallenge, ErrorCode, type FieldIssue } from '../kernel/errors.js';
import { sizeText } from '../kernel/size-text.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** True on the routes behind the bearer-key door (api-key-auth.ts): their 401s carry a Bearer challenge. */
    bearerRoute: boolean | undefined;
  }
}

/** The single mapping from domain error codes to HTTP (RFC 9457 problem details). */
export const PROBLEM: Record<ErrorCode, { status: number; title: string }> = {
  VALIDATION: { status: 400, title: 'Invalid request' },
  UNAUTHENTICATED: { status: 401, title: 'Authentication required' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  CONFLICT: { status: 409, title: 'Conflict' },
  UNPROCESSABLE: { status: 422, title: 'Unprocessable content' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  MISDIRECTED: { status: 421, title: 'Misdirected request' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  UNAVAILABLE: { status: 503, title: 'Service unavailable' },
  INTERNAL: { status: 500, title: 'Internal server error' },
};

const STATUS_TO_CODE: Record<number, ErrorCode> = Object.fromEntries(Object.entries(PROBLEM).map(([code, p]) => [p.status, code as ErrorCode]));

export type ProblemBody = {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  requestId: string;
  errors?: FieldIssue[];
};

/** Problem type URIs are documentation pages served at `/problems/{code}`. */
export const problemTypePath = (code: ErrorCode): string => `/problems/${code.toLowerCase().replaceAll('_', '-')}`;

/**
 * Normalises any thrown value into a domain error; Fastify's own 4xx errors keep their message. A
 * body over its route's `bodyLimit`, when given, is refused naming that limit.
 */
export function toAppError(err: unknown, bodyLimit?: number): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) {
    return new AppError(ErrorCode.UNAVAILABLE, 'the database is unavailable; nothing was stored, try again shortly', { retryAfterSeconds: 5 });
  }
  // Text the database cannot store (a NUL character, an unpaired surrogate): the client's input,
  // refused as such rather than as a server fault, whichever field or surface it came through.
  if (isUnstorableText(err)) {
    return new AppError(ErrorCode.VALIDATION, 'the input contains a character that cannot be stored (such as NUL, U+0000)');
  }
  const fe = err as Partial<FastifyError>;
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code = STATUS_TO_CODE[status] ?? ErrorCode.VALIDATION;
    const message =
      fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? `request body is larger than this endpoint accepts${bodyLimit ? ` (at most ${sizeText(bodyLimit)})` : ''}`
        : fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'unsupported Content-Type for this endpoint'
          : (fe.message ?? PROBLEM[code].title);
    return new AppError(code, message);
  }
  return new AppError(ErrorCode.INTERNAL, 'an unexpected error occurred; quote the request id when reporting it');
}

export function problemBody(err: AppError, request: FastifyRequest, origin: string): ProblemBody {
  const p = PROBLEM[err.code];
  return {
    type: `${origin}${problemTypePath(err.code)}`,
    title: p.title,
    status: p.status,
    detail: err.message,
    instance: request.url.split('?')[0],
    requestId: request.id,
    ...(err.extra.issues && err.extra.issues.length > 0 ? { errors: err.extra.issues } : {}),
  };
}

/** A credential in the Authorization header under the Bearer scheme (whatever its value). */
const BEARER_CREDENTIAL = /^bearer +\S/i;

const formatChallenge = (c: AuthChallenge | undefined): string =>
  c === undefined ? 'Bearer' : c.error === 'insufficient_scope' ? `Bearer error="insufficient_scope", scope="${c.scope}"` : `Bearer error="${c.error}"`;

/**
 * The `WWW-Authenticate` field of a refusal (RFC 9110 section 11.6.1, RFC 6750 section 3), decided
 * here only. Every 401 of a bearer route carries a Bearer challenge: the error its refusal names
 * (`invalid_request`: a key outside the Authorization header), else `invalid_token` when the
 * Authorization header presented a bearer credential (malformed, unknown, revoked, expired,
 * suspended, or of a company below the plan), else no error (none presented, or another scheme:
 * RFC 6750 section 3.1). A 403 for a missing scope carries `insufficient_scope` and the scope. No
 * realm, and never `resource_metadata`: there is no authorization server to discover (docs/access.md
 * "OAuth").
 */
export function authChallenge(err: AppError, request: FastifyRequest): string | undefined {
  if (err.code === ErrorCode.FORBIDDEN) return err.extra.challenge?.error === 'insufficient_scope' ? formatChallenge(err.extra.challenge) : undefined;
  if (err.code !== ErrorCode.UNAUTHENTICATED || request.bearerRoute !== true) return undefined;
  if (err.extra.challenge) return formatChallenge(err.extra.challenge);
  return BEARER_CREDENTIAL.test(request.headers.authorization ?? '') ? 'Bearer error="invalid_token"' : formatChallenge(undefined);
}

/** The header fields of an error answer, whether its body is problem+json or an HTML page. */
export function problemHeaders(reply: FastifyReply, err: AppError): void {
  if (err.extra.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.extra.retryAfterSeconds));
  const challenge = authChallenge(err, reply.request);
  if (challenge !== undefined) reply.header('www-authenticate', challenge);
}

export function sendProblem(reply: FastifyReply, err: AppError, origin: string): FastifyReply {
  const body = problemBody(err, reply.request, origin);
  problemHeaders(reply, err);
  return reply.code(body.status).type('application/problem+json; charset=utf-8').send(JSON.stringify(body));
}
