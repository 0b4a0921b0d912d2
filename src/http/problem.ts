import { isDatabaseUnavailable, sqlState } from '../kernel/db-errors.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode, type FieldIssue } from '../kernel/errors.js';

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

const STATUS_TO_CODE: Record<number, ErrorCode> = Object.fromEntries(
  Object.entries(PROBLEM).map(([code, p]) => [p.status, code as ErrorCode]),
);

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

/** Normalises any thrown value into a domain error; Fastify's own 4xx errors keep their message. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isDatabaseUnavailable(err)) {
    return new AppError(ErrorCode.UNAVAILABLE, 'the database is unavailable; nothing was stored, try again shortly', { retryAfterSeconds: 5 });
  }
  // Text the database cannot store (a NUL character, an unpaired surrogate): the client's input,
  // refused as such rather than as a server fault, whichever field or surface it came through.
  const state = sqlState(err);
  if (state === '22021' || state === '22P05' || (state === '22P02' && /unicode|escape/i.test(String((err as Error).message)))) {
    return new AppError(ErrorCode.VALIDATION, 'the input contains a character that cannot be stored (such as NUL, U+0000)');
  }
  const fe = err as Partial<FastifyError>;
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code = STATUS_TO_CODE[status] ?? ErrorCode.VALIDATION;
    const message =
      fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? 'request body is larger than this endpoint accepts'
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

export function sendProblem(reply: FastifyReply, err: AppError, origin: string): FastifyReply {
  const body = problemBody(err, reply.request, origin);
  if (err.extra.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.extra.retryAfterSeconds));
  return reply.code(body.status).type('application/problem+json; charset=utf-8').send(JSON.stringify(body));
}
