/**
 * Domain errors. Verbs throw these with a code; each transport maps codes once
 * (HTTP: problem+json in http/problem.ts; CLI: one line on stderr; MCP: tool errors).
 */
export const ErrorCode = {
  VALIDATION: 'VALIDATION',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  /** Well-formed input the current state cannot be turned into a valid result (e.g. an invalid CSAF document). */
  UNPROCESSABLE: 'UNPROCESSABLE',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  MISDIRECTED: 'MISDIRECTED',
  RATE_LIMITED: 'RATE_LIMITED',
  UNAVAILABLE: 'UNAVAILABLE',
  INTERNAL: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export type FieldIssue = { path: string; message: string };

/**
 * The RFC 6750 section 3.1 error a refusal of a bearer credential names in its `WWW-Authenticate`
 * field (src/http/problem.ts writes the field), when the refusal itself knows it: a key outside the
 * Authorization header (`invalid_request`), a scope the key lacks (`insufficient_scope`, with it).
 */
export type AuthChallenge = { error: 'invalid_request' } | { error: 'insufficient_scope'; scope: string };

/** The codes that mean something failed on our side: their errors keep a stack for the error log. */
const FAULTS: ReadonlySet<ErrorCode> = new Set([ErrorCode.UNAVAILABLE, ErrorCode.INTERNAL]);

export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly extra: { issues?: FieldIssue[]; retryAfterSeconds?: number; challenge?: AuthChallenge };
  constructor(code: ErrorCode, message: string, extra: AppError['extra'] = {}) {
    // A refusal (400-429) is an answer, not a fault: nothing reads its stack, and capturing one (with
    // the async frames of a request) was an eighth of the CPU of a refused API request (profiled, a
    // 401 without a key). Only faults keep theirs.
    const limit = Error.stackTraceLimit;
    if (!FAULTS.has(code)) Error.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.code = code;
    this.extra = extra;
  }
}

export const notFound = (what: string): AppError => new AppError(ErrorCode.NOT_FOUND, `${what} not found`);
export const conflict = (message: string): AppError => new AppError(ErrorCode.CONFLICT, message);
export const validation = (message: string, issues: FieldIssue[] = []): AppError => new AppError(ErrorCode.VALIDATION, message, { issues });

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
