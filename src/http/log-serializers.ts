import type { FastifyRequest } from 'fastify';
import { stdSerializers } from 'pino';
import { sqlState } from '../kernel/db-errors.js';

/**
 * Request serialiser for the service log: the path without its query string. Query strings are
 * caller data and the one place a misplaced API key would otherwise reach our logs (docs/access.md
 * "Authenticating a request" refuses such a request, but Fastify logs it on arrival).
 */
export function requestLogSerializer(req: FastifyRequest): Record<string, unknown> {
  const path = (req.url ?? '').split('?')[0] ?? '';
  const url = redactCapabilities(path);
  // A researcher's own pages (status link, mail links) are logged without the client address: the
  // address is their personal data, and after an erasure no log line may name them again
  // (docs/retention.md "Erasure").
  return url === path ? { method: req.method, url, host: req.host, remoteAddress: req.ip } : { method: req.method, url, host: req.host };
}

/**
 * Capability URLs lose their token before a path reaches the log: the researcher's private status
 * link (`/status/{token}`), the e-mail unsubscribe and confirmation links (`/mail/stop|confirm/{report}/{token}`), an
 * invitation (`/invite/{token}`) and a case participant's link (`/coordination/{token}`). Whoever
 * reads the log must not be able to read a report or a case's shared thread, silence a researcher
 * (issue 24), answer for an upstream maintainer, or join a company.
 */
export const redactCapabilities = (path: string): string => {
  const plain = decodedPath(path);
  const redacted = plain
    .replace(/^\/status\/[^/]+/, '/status/[redacted]')
    .replace(/^\/invite\/[^/]+/, '/invite/[redacted]')
    .replace(/^\/coordination\/[^/]+/, '/coordination/[redacted]')
    .replace(/^(\/mail\/(?:stop|confirm)\/[^/]+)\/[^/]+/, '$1/[redacted]');
  return redacted === plain ? path : redacted;
};

/**
 * The path as the router matches it: percent-encoding undone segment by segment (a segment that
 * does not decode stays as sent). The router serves `/%73tatus/{token}` as `/status/{token}` (RFC
 * 3986 6.2.2.2: the same URI), so the redaction reads the decoded form (issue 32, finding 7).
 */
function decodedPath(path: string): string {
  if (!path.includes('%')) return path;
  return path
    .split('/')
    .map((segment) => {
      try {
        return decodeURIComponent(segment);
      } catch {
        return segment;
      }
    })
    .join('/');
}

/** Drizzle puts a failed query's parameters (report text, e-mail, password hash) into its message. */
const withoutParams = (m: string): string => {
  const i = m.indexOf('\nparams:');
  return i >= 0 ? `${m.slice(0, i)}\nparams: [not logged]` : m;
};

/**
 * Error serialiser for the service log: pino's standard one, minus every copy of query parameters
 * (the `params` property, the message tail, and the message inside the stack), through the whole
 * `cause` chain. Keeps the SQL text and SQLSTATE, which is what an operator needs.
 */
export function errorLogSerializer(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const s = stdSerializers.err(err) as unknown as Record<string, unknown>;
  const clean = (o: Record<string, unknown>): Record<string, unknown> => {
    const { params: _p, ...rest } = o;
    if (typeof rest.message === 'string') rest.message = withoutParams(rest.message);
    if (typeof rest.stack === 'string') {
      const frames = rest.stack.split('\n').filter((l) => /^\s+at /.test(l));
      rest.stack = [`${String(rest.type ?? 'Error')}: ${String(rest.message ?? '')}`, ...frames].join('\n');
    }
    if (rest.cause && typeof rest.cause === 'object') rest.cause = clean(rest.cause as Record<string, unknown>);
    return rest;
  };
  const state = sqlState(err);
  return state ? { ...clean(s), sqlState: state } : clean(s);
}
