import type { FastifyReply, FastifyRequest } from 'fastify';
import { assertSameOrigin, currentSession } from '../../http/session-auth.js';
import { assertRouteAccess } from './route-access.js';

/**
 * The first check of a dashboard form that carries files, run before its body is read (the
 * dashboard's own checks run after parsing): a signed-in member, from our origin, of a role that may
 * use the route. Without a session, the sign-in page, as the dashboard answers any form.
 */
export async function signedInUploadGate(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const s = await currentSession(req);
  if (!s) return reply.redirect('/login?next=%2Fdashboard', 303);
  assertSameOrigin(req);
  req.session = s;
  assertRouteAccess(req);
  return undefined;
}
