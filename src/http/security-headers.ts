import type { FastifyInstance } from 'fastify';

/**
 * Strict by default for every response. Pages load only the local stylesheet and, on the
 * dashboard, one local script file (the copy button; no inline script anywhere); forms post only
 * to their own origin; nothing may frame us.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "script-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function securityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    // A route may set its own policy (the API reference page adds connect-src 'self'); else the strict one.
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
    reply.header('x-content-type-options', 'nosniff');
    // Status links are capability URLs: never leak a path in a Referer.
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    reply.header('cross-origin-opener-policy', 'same-origin');
    reply.header('cross-origin-resource-policy', 'same-site');
    // Unpublished vulnerabilities must not sit in shared caches; assets opt back in.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    done(null, payload);
  });
}
