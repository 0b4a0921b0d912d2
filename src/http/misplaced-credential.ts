import type { FastifyRequest } from 'fastify';
import { KEY_FORMAT } from '../modules/keys/keys.schemas.js';
import { parseCookies } from './cookies.js';

/**
 * docs/access.md "Authenticating a request": a key in a query parameter, a cookie or a body field
 * is refused. A query parameter or top-level body field with a credential-like name, or any value
 * of the form "Bearer ...", is refused whatever its value; any other value shaped like a key (64
 * hex), cookies included, is a candidate, refused when it turns out to be a real key (an identifier
 * that merely looks like hex is left alone).
 */
const CREDENTIAL_NAMES = new Set(['apikey', 'api_key', 'api-key', 'key', 'token', 'access_token', 'accesstoken', 'bearer', 'authorization', 'x-api-key']);
const BEARERISH = /^\s*bearer\s+/i;

export type Misplaced = {
  where: 'query parameter' | 'cookie' | 'body field';
  name: string;
  /** Refused whatever the value: a credential-like name, or a "Bearer ..." value. */
  named: boolean;
  /** A key-shaped value (64 hex): refused when it is a real key, and then audited as its use. */
  candidate?: string;
};

function scan(where: Misplaced['where'], entries: Iterable<[string, unknown]>, byName = true): Misplaced[] {
  const found: Misplaced[] = [];
  for (const [name, v] of entries) {
    for (const value of Array.isArray(v) ? v : [v]) {
      if (typeof value !== 'string') continue;
      const bare = value.trim().replace(BEARERISH, '').toLowerCase();
      const named = (byName && CREDENTIAL_NAMES.has(name.toLowerCase())) || BEARERISH.test(value);
      const candidate = KEY_FORMAT.test(bare) ? bare : undefined;
      if (named || candidate) found.push({ where, name, named, ...(candidate ? { candidate } : {}) });
    }
  }
  return found;
}

/**
 * At most this many distinct key-shaped values are looked up per request; a request carrying more
 * is refused unread. Each candidate costs a key lookup, and a 1 MB body of 13,000 of them once held
 * the embedded database for 6 s (issue 24). No real client sends more than one.
 */
export const MAX_KEY_CANDIDATES = 4;

/** The distinct candidate values, or a refusal when there are too many. */
export function candidatesOf(found: readonly Misplaced[]): string[] {
  const values = new Set<string>();
  for (const m of found) if (m.candidate !== undefined) values.add(m.candidate);
  return [...values];
}

/** Credentials in the query string or cookies (known before the body is read). */
export function misplacedInHead(req: FastifyRequest): Misplaced[] {
  const q = req.url.indexOf('?');
  const query = q >= 0 ? [...new URLSearchParams(req.url.slice(q + 1))] : [];
  const cookies = Object.entries(parseCookies(req.headers.cookie));
  // Cookies are matched by value only: cookies are shared across ports of a host, so a `token`
  // cookie of some other application on the same host must not break API calls.
  return [...scan('query parameter', query), ...scan('cookie', cookies, false)];
}

/** Credentials in top-level fields of a parsed body (a raw document body is not parsed here). */
export function misplacedInBody(body: unknown): Misplaced[] {
  if (!body || typeof body !== 'object' || Array.isArray(body) || ArrayBuffer.isView(body)) return [];
  return scan('body field', Object.entries(body as Record<string, unknown>));
}
