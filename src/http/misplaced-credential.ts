import type { FastifyRequest } from 'fastify';
import { KEY_FORMAT } from '../modules/keys/keys.schemas.js';
import { parseCookies } from './cookies.js';

/**
 * Spec "Authentication" rule 2: a key in a query parameter, a cookie or a body field is refused.
 * A parameter, cookie or top-level body field with a credential-like name is refused whatever its
 * value; any other value shaped like a key (64 hex) is reported as a candidate, and refused when it
 * turns out to be a real key (an identifier that merely looks like hex is left alone).
 */
const CREDENTIAL_NAMES = new Set([
  'apikey',
  'api_key',
  'api-key',
  'key',
  'token',
  'access_token',
  'accesstoken',
  'bearer',
  'authorization',
  'x-api-key',
]);
const BEARERISH = /^\s*bearer\s+/i;

export type Misplaced = { where: 'query parameter' | 'cookie' | 'body field'; name: string; candidate?: string };

function scan(where: Misplaced['where'], entries: Iterable<[string, unknown]>): Misplaced[] {
  const found: Misplaced[] = [];
  for (const [name, v] of entries) {
    const values = Array.isArray(v) ? v : [v];
    if (CREDENTIAL_NAMES.has(name.toLowerCase())) {
      found.push({ where, name });
      continue;
    }
    for (const value of values) {
      if (typeof value !== 'string') continue;
      if (BEARERISH.test(value)) found.push({ where, name });
      else if (KEY_FORMAT.test(value.trim().toLowerCase())) found.push({ where, name, candidate: value.trim().toLowerCase() });
    }
  }
  return found;
}

/** Credentials in the query string or cookies (known before the body is read). */
export function misplacedInHead(req: FastifyRequest): Misplaced[] {
  const q = req.url.indexOf('?');
  const query = q >= 0 ? [...new URLSearchParams(req.url.slice(q + 1))] : [];
  const cookies = Object.entries(parseCookies(req.headers.cookie));
  return [...scan('query parameter', query), ...scan('cookie', cookies)];
}

/** Credentials in top-level fields of a parsed body. */
export function misplacedInBody(body: unknown): Misplaced[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return [];
  return scan('body field', Object.entries(body as Record<string, unknown>));
}
