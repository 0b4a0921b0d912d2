import type { FastifyInstance } from 'fastify';
import { asSystem } from '../db/tenant-scope.js';
import { AppError, ErrorCode } from '../kernel/errors.js';
import { createKey } from '../modules/keys/create-key.js';
import { listKeys, revokeKey, rotateKey } from '../modules/keys/manage-keys.js';
import { endSession } from '../modules/sessions/sessions.js';
import { signIn } from '../modules/users/sign-in.js';
import { assertMemberMay } from '../modules/users/roles.js';
import { addressBucket } from './client-address.js';
import { requestContext } from './request-context.js';
import { assertJsonBody, assertSameOrigin, clearSessionCookie, currentSession, requireSession, setSessionCookie } from './session-auth.js';

/**
 * docs/access.md "Dashboard sign-in and sessions" and "API keys": JSON sign-in and sign-out, and
 * the key provisioning endpoints (session only; an API key gets 401). Every state change needs a
 * JSON body and our own Origin.
 */
export async function sessionRoutes(app: FastifyInstance): Promise<void> {
  const { config, database } = app.deps;
  const db = database.db;

  app.post('/api/session', async (req, reply) => {
    assertSameOrigin(req);
    assertJsonBody(req);
    try {
      // The account is found by its address across companies: the sign-in step runs as system.
      const s = await asSystem(() => signIn(db, requestContext(req, { type: 'public' }), req.body, addressBucket(req.ip ?? 'unknown'), 'inline'));
      if (s.kind !== 'session') throw new Error('an inline sign-in never asks for a second step');
      setSessionCookie(reply, config, s.token);
      return reply.code(204).send();
    } catch (e) {
      if (e instanceof AppError && e.code === ErrorCode.UNAUTHENTICATED) req.log.info({ ip: req.ip }, 'failed sign-in');
      throw e;
    }
  });

  // DELETE cannot be sent cross-site without a CORS preflight (which we never grant), so it needs
  // no body; when it has one, it must be JSON like every other state change.
  app.delete('/api/session', async (req, reply) => {
    assertSameOrigin(req);
    if (req.headers['content-type'] !== undefined) assertJsonBody(req);
    const s = await currentSession(req);
    if (s) await endSession(db, requestContext(req, { type: 'user', id: s.user.id }), s);
    clearSessionCookie(reply, config);
    return reply.code(204).send();
  });

  app.get('/api/settings/api-keys', async (req) => {
    const s = await requireSession(req);
    assertMemberMay({ plan: s.company.plan, role: s.user.role }, { access: 'read-admin' });
    return listKeys(db, s.company.id);
  });

  app.post('/api/settings/api-keys', async (req, reply) => {
    const s = await requireSession(req);
    assertMemberMay({ plan: s.company.plan, role: s.user.role }, { access: 'admin' });
    assertSameOrigin(req);
    assertJsonBody(req);
    const issued = await createKey(db, requestContext(req, { type: 'user', id: s.user.id }), s.company.id, req.body ?? {});
    return reply.code(201).send(issued);
  });

  app.post<{ Params: { id: string } }>('/api/settings/api-keys/:id/rotate', async (req) => {
    const s = await requireSession(req);
    assertMemberMay({ plan: s.company.plan, role: s.user.role }, { access: 'admin' });
    assertSameOrigin(req);
    if (req.headers['content-type'] !== undefined) assertJsonBody(req);
    return rotateKey(db, requestContext(req, { type: 'user', id: s.user.id }), s.company.id, req.params.id);
  });

  app.delete<{ Params: { id: string } }>('/api/settings/api-keys/:id', async (req, reply) => {
    const s = await requireSession(req);
    assertMemberMay({ plan: s.company.plan, role: s.user.role }, { access: 'admin' });
    assertSameOrigin(req);
    if (req.headers['content-type'] !== undefined) assertJsonBody(req);
    await revokeKey(db, requestContext(req, { type: 'user', id: s.user.id }), s.company.id, req.params.id);
    return reply.code(204).send();
  });
}
