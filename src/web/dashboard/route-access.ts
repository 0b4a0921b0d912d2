import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_OPERATIONS } from '../../http/api-operations.js';
import type { Access, Need } from '../../kernel/access.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { operationNeed } from '../../modules/operations/operation.js';
import { assertMemberMay } from '../../modules/users/roles.js';

/**
 * The dashboard's access policy (docs/access.md "Team and roles"): every route, by method and
 * path, answers from `authorize` (src/kernel/access.ts) with the need of the operation it performs,
 * the same need REST and MCP check, so a role rule is written once, on the operation (its scope's
 * access level, or its own `access`). A route missing here stops the server at start
 * (`guardRoutes`), so no page or form is reachable by a default; the generated role suite and the
 * access parity test walk these tables.
 */
export const ROUTE_OPERATIONS: Readonly<Record<string, string>> = {
  'GET /reports/:id': 'reports.get',
  'GET /reports/export': 'reports.export',
  'GET /reports/:id/article14/pack': 'article14.get',
  'POST /reports/:id/status': 'reports.update',
  'POST /reports/:id/severity': 'reports.update',
  'POST /reports/:id/facts': 'reports.update',
  'POST /reports/:id/article14/:stage': 'article14.file',
  'POST /reports/:id/messages': 'reports.messages.post',
  'POST /reports/:id/suggestion': 'reports.update',
  'POST /reports/:id/assignee': 'reports.update',
  'POST /reports/:id/notes': 'reports.notes.add',
  'POST /reports/bulk': 'reports.bulk_update',
  'POST /reports/saved-filters': 'reports.saved_filters.save',
  'POST /reports/saved-filters/:id': 'reports.saved_filters.update',
  'POST /reports/saved-filters/:id/delete': 'reports.saved_filters.delete',
  'GET /cases': 'cases.list',
  'POST /cases': 'cases.open',
  'GET /cases/:id': 'cases.get',
  'GET /cases/:id/coordinator-pack': 'cases.coordinator_pack',
  'GET /cases/:id/attachments/:attachmentId': 'cases.attachments.download',
  'POST /cases/:id/participants': 'cases.participants.add',
  'POST /cases/:id/notices': 'cases.notices.prepare',
  'POST /cases/:id/notices/confirm': 'cases.notices.confirm',
  'POST /cases/:id/embargo': 'cases.embargo.propose',
  'POST /cases/:id/embargo/end': 'cases.embargo.end',
  'POST /cases/:id/messages': 'cases.messages.post',
  'POST /cases/:id/fixes': 'cases.fixes.add',
  'POST /cases/:id/participant-status': 'cases.participants.update',
  'GET /cases/inbound/:id': 'cases.inbound.get',
  'GET /cases/inbound/:id/attachments/:attachmentId': 'cases.inbound.attachments.download',
  'POST /cases/inbound/:id/acknowledge': 'cases.inbound.acknowledge',
  'POST /cases/inbound/:id/embargo': 'cases.inbound.embargo',
  'POST /cases/inbound/:id/messages': 'cases.inbound.messages.post',
  'GET /advisories': 'advisories.list',
  'GET /compliance/oscal/catalog': 'compliance.mappings_oscal',
  'GET /compliance/oscal/assessments': 'compliance.assessments_oscal',
  'GET /known-vulnerabilities/vex': 'knownVulnerabilities.vex',
  'GET /settings/export': 'export.company_data',
  'GET /advisories/:id': 'advisories.get',
  'GET /advisories/:id/csaf': 'advisories.csaf',
  'GET /advisories/:id/vex': 'advisories.vex',
  'GET /advisories/:id/preview': 'advisories.get',
  'GET /compliance': 'compliance.status',
  'POST /advisories': 'advisories.create',
  'POST /advisories/:id': 'advisories.update',
  'POST /advisories/:id/publish': 'advisories.publish',
  'POST /advisories/:id/revise': 'advisories.revise',
  'POST /advisories/:id/withdraw': 'advisories.withdraw',
  'POST /evidence/sboms': 'sboms.push',
  'POST /evidence/findings': 'sarif.push',
  'POST /compliance/attestations': 'compliance.attest',
  'POST /compliance/attestations/:id/withdraw': 'compliance.withdraw_attestation',
  'POST /compliance/products/:identifier': 'compliance.set_product_facts',
  'GET /evidence/sboms': 'sboms.list',
  'GET /evidence/sboms/:id': 'sboms.get',
  'GET /evidence/sboms/:id/document': 'sboms.document',
  'GET /evidence/findings': 'findings.list',
  'GET /known-vulnerabilities': 'knownVulnerabilities.list',
  'GET /known-vulnerabilities/:id': 'knownVulnerabilities.get',
  'POST /known-vulnerabilities/:id/decision': 'knownVulnerabilities.decide',
  'POST /known-vulnerabilities/awareness/bulk': 'knownVulnerabilities.awareness.bulk',
  'GET /products': 'products.list',
  'POST /products': 'products.upsert',
  'GET /products/:identifier': 'products.get',
  'POST /products/:identifier': 'products.upsert',
  'POST /products/:identifier/archive': 'products.archive',
  'POST /products/:identifier/restore': 'products.restore',
  'GET /settings/portal': 'portal_settings.get',
  'POST /settings/portal': 'portal_settings.update',
  'GET /settings/webhooks': 'webhooks.list',
  'POST /settings/webhooks': 'webhooks.register',
  'GET /settings/webhooks/:id': 'webhooks.deliveries',
  'POST /settings/webhooks/:id/test': 'webhooks.test',
  'POST /settings/webhooks/:id/enabled': 'webhooks.update',
  'POST /settings/webhooks/:id/rotate': 'webhooks.rotate_secret',
  'POST /settings/webhooks/:id/delete': 'webhooks.delete',
  'POST /settings/webhooks/:id/deliveries/:deliveryId/redeliver': 'webhooks.redeliver',
  'GET /upstream-contacts': 'upstream.contacts',
  'GET /settings/upstream': 'upstream.settings',
  'POST /settings/upstream/github-token': 'upstream.github_token.set',
  'POST /settings/upstream/github-token/remove': 'upstream.github_token.remove',
  'POST /settings/upstream/packages': 'upstream.maintained_packages',
  'POST /settings/upstream/case-reminders': 'upstream.case_reminders',
  'GET /settings/retention': 'retention.get',
  'POST /settings/retention': 'retention.update',
  'POST /settings/retention/run': 'retention.run',
  'POST /settings/retention/holds': 'retention.holds.place',
  'POST /settings/retention/holds/:id/release': 'retention.holds.release',
  'POST /settings/retention/erasures': 'retention.erasures.record',
};

/**
 * The dashboard actions that no operation performs, each with the access level it needs: pages
 * that gather several reads (overview, inbox, evidence), and what the API does not offer (API keys,
 * the team, the audit log, one's own account and e-mail choices: session-only by design).
 */
export const ROUTES_WITHOUT_OPERATION: Readonly<Record<string, Access>> = {
  'GET /dashboard': 'read',
  'GET /reports': 'read',
  'GET /evidence': 'read',
  'GET /settings/api-keys': 'read-admin',
  'POST /settings/api-keys': 'admin',
  'POST /settings/api-keys/:id/rotate': 'admin',
  'POST /settings/api-keys/:id/revoke': 'admin',
  'GET /settings/team': 'read-admin',
  'POST /settings/team/invitations': 'admin',
  'POST /settings/team/invitations/:id/resend': 'admin',
  'POST /settings/team/invitations/:id/revoke': 'admin',
  'POST /settings/team/members/:id/role': 'admin',
  'POST /settings/team/members/:id/remove': 'admin',
  'GET /settings/notifications': 'self',
  'POST /settings/notifications': 'self',
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

const OPERATIONS = new Map(API_OPERATIONS.map((op) => [op.name, op]));

/** What a dashboard route needs: its operation's need, or its own access level. */
export function routeNeed(route: string): Need | undefined {
  const name = ROUTE_OPERATIONS[route];
  if (name === undefined) {
    const access = ROUTES_WITHOUT_OPERATION[route];
    return access === undefined ? undefined : { access };
  }
  const op = OPERATIONS.get(name);
  if (!op) throw new Error(`dashboard route ${route} names ${name}, which is no operation`);
  return operationNeed(op);
}

/** Every dashboard route, `METHOD /path`. */
export const DASHBOARD_ROUTES: readonly string[] = [...Object.keys(ROUTE_OPERATIONS), ...Object.keys(ROUTES_WITHOUT_OPERATION)];
for (const route of DASHBOARD_ROUTES) routeNeed(route);

const routeKey = (method: string, url: string): string => `${method === 'HEAD' ? 'GET' : method} ${url}`;

/** Every route registered in `app` (and its children) must be in a table, or the server does not start. */
export function guardRoutes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (routeNeed(routeKey(method, route.url)) === undefined)
        throw new Error(`dashboard route ${method} ${route.url} is in neither ROUTE_OPERATIONS nor ROUTES_WITHOUT_OPERATION`);
    }
  });
}

/** The route's need, asked of `authorize` for the signed-in member and the company's plan: 403 when refused. */
export function assertRouteAccess(req: FastifyRequest): void {
  const need = routeNeed(routeKey(req.method, req.routeOptions.url ?? ''));
  if (need === undefined) throw new AppError(ErrorCode.FORBIDDEN, 'this page has no access rule');
  assertMemberMay({ plan: req.session.company.plan, role: req.session.user.role }, need);
}
