import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { type Access, assertAccess } from '../../modules/users/roles.js';

/**
 * The dashboard's access policy in one place: every route, by method and path, with what it
 * needs (see `roles.ts`). A route missing here stops the server at start (`guardRoutes`), so no
 * page or form is ever reachable by a default; the generated role suite walks this table.
 */
export const ROUTE_ACCESS: Readonly<Record<string, Access>> = {
  'GET /dashboard': 'read',
  'GET /reports': 'read',
  'GET /reports/:id': 'read',
  'GET /reports/export': 'read',
  'GET /reports/:id/article14/pack': 'read',
  'POST /reports/:id/status': 'triage',
  'POST /reports/:id/severity': 'triage',
  'POST /reports/:id/facts': 'triage',
  'POST /reports/:id/article14/:stage': 'triage',
  'POST /reports/:id/messages': 'triage',
  'POST /reports/:id/suggestion': 'triage',
  'POST /reports/:id/assignee': 'triage',
  'POST /reports/:id/notes': 'triage',
  'POST /reports/bulk': 'triage',
  'GET /cases': 'read',
  'POST /cases': 'triage',
  'GET /cases/:id': 'read',
  'POST /cases/:id/participants': 'triage',
  'POST /cases/:id/notices': 'triage',
  'POST /cases/:id/notices/confirm': 'triage',
  'POST /cases/:id/embargo': 'triage',
  'POST /cases/:id/embargo/end': 'triage',
  'POST /cases/:id/messages': 'triage',
  'POST /cases/:id/participant-status': 'triage',
  'GET /cases/inbound/:id': 'read',
  'POST /cases/inbound/:id/acknowledge': 'triage',
  'POST /cases/inbound/:id/embargo': 'triage',
  'POST /cases/inbound/:id/messages': 'triage',
  'GET /advisories': 'read',
  'GET /compliance/oscal/catalog': 'read',
  'GET /compliance/oscal/assessments': 'read',
  'GET /known-vulnerabilities/vex': 'read',
  'GET /settings/export': 'admin',
  'GET /advisories/:id': 'read',
  'GET /advisories/:id/csaf': 'read',
  'GET /advisories/:id/vex': 'read',
  'GET /advisories/:id/preview': 'read',
  'GET /compliance': 'read',
  'POST /advisories': 'triage',
  'POST /advisories/:id': 'triage',
  'POST /advisories/:id/publish': 'triage',
  'POST /advisories/:id/revise': 'triage',
  'POST /advisories/:id/withdraw': 'triage',
  'POST /evidence/sboms': 'triage',
  'POST /evidence/findings': 'triage',
  'POST /compliance/attestations': 'triage',
  'POST /compliance/attestations/:id/withdraw': 'triage',
  'POST /compliance/products/:identifier': 'triage',
  'GET /evidence': 'read',
  'GET /evidence/sboms': 'read',
  'GET /evidence/sboms/:id': 'read',
  'GET /evidence/sboms/:id/document': 'read',
  'GET /evidence/findings': 'read',
  'GET /known-vulnerabilities': 'read',
  'GET /known-vulnerabilities/:id': 'read',
  'POST /known-vulnerabilities/:id/decision': 'triage',
  'POST /known-vulnerabilities/awareness/:id/confirm': 'triage',
  'POST /known-vulnerabilities/awareness/:id/dismiss': 'triage',
  'GET /products': 'read',
  'POST /products': 'triage',
  'GET /products/:identifier': 'read',
  'POST /products/:identifier': 'triage',
  'POST /products/:identifier/archive': 'triage',
  'POST /products/:identifier/restore': 'triage',
  'GET /settings/api-keys': 'read-admin',
  'POST /settings/api-keys': 'admin',
  'POST /settings/api-keys/:id/rotate': 'admin',
  'POST /settings/api-keys/:id/revoke': 'admin',
  'GET /settings/portal': 'read-admin',
  'POST /settings/portal': 'admin',
  'GET /settings/webhooks': 'read-admin',
  'POST /settings/webhooks': 'admin',
  'GET /settings/webhooks/:id': 'read-admin',
  'POST /settings/webhooks/:id/test': 'admin',
  'POST /settings/webhooks/:id/enabled': 'admin',
  'POST /settings/webhooks/:id/rotate': 'admin',
  'POST /settings/webhooks/:id/delete': 'admin',
  'POST /settings/webhooks/:id/deliveries/:deliveryId/redeliver': 'admin',
  'GET /upstream-contacts': 'read',
  'GET /settings/upstream': 'read-admin',
  'POST /settings/upstream/github-token': 'admin',
  'POST /settings/upstream/github-token/remove': 'admin',
  'POST /settings/upstream/packages': 'admin',
  'GET /settings/team': 'read-admin',
  'POST /settings/team/invitations': 'admin',
  'POST /settings/team/invitations/:id/resend': 'admin',
  'POST /settings/team/invitations/:id/revoke': 'admin',
  'POST /settings/team/members/:id/role': 'admin',
  'POST /settings/team/members/:id/remove': 'admin',
  'GET /settings/notifications': 'self',
  'POST /settings/notifications': 'self',
  'GET /settings/retention': 'admin',
  'POST /settings/retention': 'admin',
  'POST /settings/retention/run': 'admin',
  'POST /settings/retention/holds': 'admin',
  'POST /settings/retention/holds/:id/release': 'admin',
  'POST /settings/retention/erasures': 'admin',
  'GET /audit': 'read-admin',
  'GET /account': 'self',
  'POST /account/password': 'self',
  'POST /account/sessions/:id/end': 'self',
  'POST /account/sessions/end-all': 'self',
  'POST /account/security-policy': 'admin',
  'GET /account/second-factor': 'self',
  'POST /account/second-factor/start': 'self',
  'POST /account/second-factor/confirm': 'self',
  'POST /account/second-factor/recovery-codes': 'self',
  'POST /account/second-factor/disable': 'self',
};

const routeKey = (method: string, url: string): string => `${method === 'HEAD' ? 'GET' : method} ${url}`;

/** Every route registered in `app` (and its children) must be in the table, or the server does not start. */
export function guardRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (!(routeKey(method, route.url) in ROUTE_ACCESS)) throw new Error(`dashboard route ${method} ${route.url} has no entry in ROUTE_ACCESS`);
    }
  });
}

/** The route's need, checked against the signed-in person's role: 403 when the role may not. */
export function assertRouteAccess(req: FastifyRequest): void {
  const access = ROUTE_ACCESS[routeKey(req.method, req.routeOptions.url ?? '')];
  if (access === undefined) throw new AppError(ErrorCode.FORBIDDEN, 'this page has no access rule');
  assertAccess(req.session.user.role, access);
}
