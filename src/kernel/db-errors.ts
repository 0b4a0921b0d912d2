/** PostgreSQL SQLSTATE of an error from either driver (drizzle wraps driver errors in `cause`). */
export function sqlState(e: unknown): string | undefined {
  for (let cur: unknown = e, depth = 0; cur && depth < 4; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The database error in the chain (the one carrying a SQLSTATE): its code, message and detail. */
function sqlError(e: unknown): { code: string; text: string } | undefined {
  for (let cur: unknown = e, depth = 0; cur && depth < 4; depth++) {
    const { code, message, detail } = cur as { code?: unknown; message?: unknown; detail?: unknown };
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return { code, text: `${String(message ?? '')} ${String(detail ?? '')}` };
    cur = (cur as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Whether the database refused text it cannot store: a NUL character (22021), a character the
 * encoding lacks (22P05), or in JSON an escape it does not take, such as an unpaired surrogate
 * `\ud800` (22P02 "invalid input syntax for type json", the surrogate named in the detail). The
 * client's input, whichever field or surface it came through, never a server fault.
 */
export function isUnstorableText(e: unknown): boolean {
  const found = sqlError(e);
  if (!found) return false;
  return found.code === '22021' || found.code === '22P05' || (found.code === '22P02' && /unicode|escape|surrogate/i.test(found.text));
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
