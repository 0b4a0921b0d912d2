import type { FastifyRequest } from 'fastify';

/**
 * Request serialiser for the service log: the path without its query string. Query strings are
 * caller data and the one place a misplaced API key would otherwise reach our logs (spec
 * "Authentication" rule 2 refuses such a request, but Fastify logs it on arrival).
 */
export function requestLogSerializer(req: FastifyRequest): Record<string, unknown> {
  return { method: req.method, url: (req.url ?? '').split('?')[0], host: req.host, remoteAddress: req.ip };
}
