import type { Operation } from '../modules/operations/operation.js';

/** One refusal an operation can answer: when (the OpenAPI description) and the header fields it carries. */
export type ErrorResponse = { description: string; headers?: Record<string, string> };

/** The JSON body limit of every operation without a document body (Fastify's `bodyLimit`, app.ts). */
export const JSON_BODY_LIMIT = 1024 * 1024;

/** Whether the transport reads a body for this method (Fastify parses any method but GET and HEAD). */
export const readsBody = (op: Operation): boolean => op.method !== 'GET';

const pathParams = (op: Operation): string[] => [...op.path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string);

export const RATE_HEADERS = {
  'Retry-After': 'Seconds until a request is accepted again.',
  RateLimit: 'IETF RateLimit field: the remaining quota and when the window resets.',
  'RateLimit-Policy': 'IETF RateLimit-Policy field: the limit and its window.',
};

/**
 * Every error status an operation can answer, with when, in status order: the refusals every
 * `{base_url}` operation shares (400, 401, 403, 429, 503), the ones its shape implies (404 for a
 * path id, 413 and 415 for a method that carries a body) and its verb's own (`op.errors`). The one
 * source of the OpenAPI responses (src/http/openapi.ts) and of what the generated answer walk
 * accepts (test/http/api-responses.generated.test.ts).
 */
export function errorResponses(op: Operation): Map<number, ErrorResponse> {
  const out = new Map<number, ErrorResponse>();
  const params = pathParams(op);
  const input = op.input !== undefined || op.query !== undefined || params.length > 0;
  const malformed = `${readsBody(op) ? 'a body that is not valid JSON, ' : ''}a malformed URL, or more than 4 values shaped like API keys in the query${readsBody(op) ? ', cookies or body fields' : ' or cookies'}.`;
  out.set(400, {
    description: input ? `Invalid input: \`errors\` names each bad field. Also ${malformed}` : `${malformed.charAt(0).toUpperCase()}${malformed.slice(1)}`,
  });
  out.set(401, {
    description: `Missing, malformed, unknown, expired, revoked or suspended key, a key outside the Authorization header, or a company below the ${op.minPlan === 'reporting' ? 'Reporting' : 'Enterprise'} plan.`,
    headers: {
      'WWW-Authenticate':
        'RFC 6750: `Bearer` when no bearer key was sent, `Bearer error="invalid_token"` for a key that is not accepted, `Bearer error="invalid_request"` for a key outside the Authorization header.',
    },
  });
  out.set(403, {
    description: `The key lacks the scope "${op.scope}", or the request comes from outside the key's address allowlist.`,
    headers: { 'WWW-Authenticate': `\`Bearer error="insufficient_scope", scope="${op.scope}"\` when the key lacks the scope; absent for the allowlist.` },
  });
  const notFound = [
    ...(params.length ? [`No ${params.length > 1 ? 'such record' : 'record with this id'} for your company (another company's id is not found either).`] : []),
    ...(op.errors?.[404] ? [op.errors[404]] : []),
  ];
  if (notFound.length) out.set(404, { description: notFound.join(' ') });
  if (op.errors?.[409]) out.set(409, { description: op.errors[409] });
  if (readsBody(op)) {
    out.set(413, {
      description: op.rawBody
        ? 'The document is larger than the configured limit (EVIDENCE_MAX_BYTES, default 50 MiB), or reading it needs more memory than one document may use.'
        : `The body is larger than ${((op.jsonBodyLimit ?? JSON_BODY_LIMIT) / 1024 / 1024).toFixed(op.jsonBodyLimit ? 1 : 0)} MiB.`,
    });
    out.set(415, {
      description: op.rawBody
        ? `The body is not one of: ${op.rawBody.mediaTypes.join(', ')}; or it is a document format that is not supported.`
        : op.input
          ? 'The body is not `application/json`.'
          : 'A body was sent that is not `application/json` (this operation reads none: send no body).',
    });
  }
  if (op.errors?.[422]) out.set(422, { description: op.errors[422] });
  const waiting = op.rawBody
    ? ' For a document, before its body is read: 2 documents of your company are already being received or read, or the instance holds `EVIDENCE_INFLIGHT_MAX_BYTES` of documents in flight (`Retry-After`).'
    : '';
  out.set(429, {
    description: `More than 100 requests per 60 s for this key (or too many refused requests from this address).${waiting}`,
    headers: RATE_HEADERS,
  });
  const busy = op.rawBody ? ' For a document: the server was too busy to finish reading it within 120 s (nothing was stored).' : '';
  out.set(503, {
    description: `The database or the audit log is unavailable: nothing was changed; retry shortly (\`Retry-After\` says when, if known).${busy}`,
    headers: { 'Retry-After': 'Seconds to wait before retrying, when known.' },
  });
  return new Map([...out].sort(([a], [b]) => a - b));
}
