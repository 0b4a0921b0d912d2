import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../kernel/errors.js';
import { html } from './html.js';
import { page } from './layout.js';
import { PROBLEM, problemTypePath } from '../http/problem.js';

const EXPLAIN: Record<ErrorCode, string> = {
  VALIDATION: 'The request was malformed or a field failed validation. `errors` lists each field path and its message.',
  UNAUTHENTICATED: 'Send a valid, unexpired API key as `Authorization: Bearer <key>`, or sign in.',
  FORBIDDEN: "The credential is valid but may not do this: a missing scope, or a source address outside the key's allowlist.",
  NOT_FOUND: 'No such resource exists for your company.',
  CONFLICT: 'The request conflicts with the current state, for example a slug or e-mail that is already taken.',
  UNPROCESSABLE:
    'The request is well-formed, but what it asks for cannot be produced validly; for example an advisory whose CSAF document fails the official schema. `errors` names each problem.',
  PAYLOAD_TOO_LARGE: 'The request body exceeds the limit of this endpoint.',
  UNSUPPORTED_MEDIA_TYPE: 'Send the body with a Content-Type this endpoint accepts.',
  MISDIRECTED: 'The Host header names neither this service nor one of its company portals.',
  RATE_LIMITED: 'Too many requests. Wait for the number of seconds in `Retry-After`.',
  UNAVAILABLE: 'The service cannot answer right now (starting, stopping, or its database is unreachable). Retry later.',
  INTERNAL: 'An unexpected error. Quote the `requestId` when you report it.',
};

/** The `type` URI of each problem document resolves to a short explanation. */
export async function problemPages(app: FastifyInstance): Promise<void> {
  for (const code of Object.values(ErrorCode)) {
    const p = PROBLEM[code];
    app.get(problemTypePath(code), async (_req, reply) =>
      reply
        .header('cache-control', 'public, max-age=86400')
        .type('text/html; charset=utf-8')
        .send(page({ title: p.title, brand: 'Cradle', body: html`<h1>${p.status} ${p.title}</h1><p>${EXPLAIN[code]}</p>` })),
    );
  }
}
