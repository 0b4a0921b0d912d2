/** PostgreSQL SQLSTATE of an error from either driver (drizzle wraps driver errors in `cause`). */
export function sqlState(e: unknown): string | undefined {
  for (let cur: unknown = e, depth = 0; cur && depth < 4; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

export const isUniqueViolation = (e: unknown): boolean => sqlState(e) === '23505';

const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether an error means the database is unreachable rather than that the request was wrong: a
 * refused or dropped connection, a server shutting down or starting, no free connection slot.
 * Such a request is answered 503 (try again) and never acknowledged.
 */
export function isDatabaseUnavailable(e: unknown): boolean {
  for (let cur: unknown = e, depth = 0; cur && depth < 4; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    if (/Connection terminated|connection timeout|Client has encountered a connection error/i.test(String((cur as { message?: unknown }).message ?? '')))
      return true;
    cur = (cur as { cause?: unknown }).cause;
  }
  return false;
}
