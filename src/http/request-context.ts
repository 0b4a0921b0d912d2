import type { FastifyRequest } from 'fastify';
import type { Actor, Context } from '../kernel/context.js';

/**
 * The verb context of an HTTP request. `req.ip` already honours TRUST_PROXY (Fastify resolves
 * X-Forwarded-For only through trusted proxies), so this is the one place the client address comes from.
 */
export function requestContext(req: FastifyRequest, actor: Actor): Context {
  const ua = req.headers['user-agent'];
  return { actor, requestId: req.id, ip: req.ip, userAgent: typeof ua === 'string' ? ua.slice(0, 512) : undefined };
}
