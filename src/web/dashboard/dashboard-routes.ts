import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { portalUrl } from '../../config.js';
import { requestContext } from '../../http/request-context.js';
import { assertCsrf, assertSameOrigin, currentSession } from '../../http/session-auth.js';
import { AppError, ErrorCode, isAppError } from '../../kernel/errors.js';
import { mustEnrolSecondFactor, type SessionView } from '../../modules/sessions/sessions.js';
import { accountDashboardRoutes, ENROLMENT_ROUTES } from './account-routes.js';
import { SECOND_FACTOR_PATH } from './second-factor-page.js';
import { AuditFilter, listAudit } from '../../modules/audit/list-audit.js';
import { createKey } from '../../modules/keys/create-key.js';
import { listKeys, revokeKey, rotateKey } from '../../modules/keys/manage-keys.js';
import { listMembers } from '../../modules/team/members.js';
import { gettingStarted } from '../../modules/onboarding/getting-started.js';
import { gettingStartedPanel } from './getting-started-panel.js';
import { inboxCounts } from '../../modules/article14/list-inbox.js';
import { pendingAwareness } from '../../modules/known-vulns/awareness-groups.js';
import { awarenessWaiting } from './awareness-groups-panel.js';
import { html } from '../html.js';
import { apiKeysPage, type KeyFormValues } from './api-keys-page.js';
import { auditPage } from './audit-page.js';
import { complianceDashboardRoutes } from './compliance-routes.js';
import { dashboardPage, sessionMay } from './dashboard-layout.js';
import { ROLE_LABELS } from '../../modules/users/roles.js';
import { webhookDashboardRoutes } from './webhooks-routes.js';
import { casesDashboardRoutes } from './cases-routes.js';
import { notificationDashboardRoutes } from './notifications-routes.js';
import { retentionDashboardRoutes } from './retention-routes.js';
import { portalSettingsDashboardRoutes } from './portal-settings-routes.js';
import { upstreamDashboardRoutes } from './upstream-routes.js';
import { teamDashboardRoutes } from './team-routes.js';
import { productDashboardRoutes } from './products-routes.js';
import { reportCounts } from './report-badges.js';
import { reportRoutes } from './reports-routes.js';
import { inboxRoutes } from './inbox-routes.js';
import { evidenceRoutes } from './evidence-routes.js';
import { knownVulnDashboardRoutes } from './known-vulns-routes.js';
import { assertRouteAccess, guardRoutes } from './route-access.js';
import { advisoryDashboardRoutes } from './advisories-routes.js';
import { DOWNLOADS, downloadRoutes } from './download-routes.js';
import { nextPanel } from './compliance-page.js';
import { whatNext } from '../../modules/compliance/compliance-dashboard.js';
import { listField, optionalField } from '../form-fields.js';
import { fieldSentences } from '../issue-sentences.js';
import { label } from '../labels.js';

declare module 'fastify' {
  interface FastifyRequest {
    session: SessionView;
  }
}

const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);

/**
 * Dashboard pages: signed-in members only, each route as its role allows (`route-access.ts`);
 * anyone else is sent to sign in and brought back.
 */
export async function dashboardRoutes(app: FastifyInstance): Promise<void> {
  const db = app.deps.database.db;
  app.decorateRequest('session', null as unknown as SessionView);
  guardRoutes(app);
  app.addHook('preHandler', async (req: FastifyRequest, reply) => {
    const s = await currentSession(req);
    // Only a page can be returned to after sign-in; a form post's target cannot be replayed by GET.
    if (!s) return reply.redirect(`/login?next=${encodeURIComponent(req.method === 'GET' ? req.url : '/dashboard')}`, 303);
    if (req.method === 'POST') {
      assertSameOrigin(req);
      assertCsrf(s, req.body);
    }
    req.session = s;
    // A company that requires a second factor: a member without one reaches only its set-up,
    // whatever the link or form (enforced here, not by hiding links).
    if (mustEnrolSecondFactor(s) && !ENROLMENT_ROUTES.has(`${req.method === 'HEAD' ? 'GET' : req.method} ${req.routeOptions.url ?? ''}`)) {
      if (req.method === 'GET' || req.method === 'HEAD') return reply.redirect(SECOND_FACTOR_PATH, 303);
      throw new AppError(ErrorCode.FORBIDDEN, 'your company requires a second factor: set one up first');
    }
    assertRouteAccess(req);
  });
  const ctxOf = (req: FastifyRequest) => requestContext(req, { type: 'user', id: req.session.user.id });
  webhookDashboardRoutes(app, ctxOf);
  notificationDashboardRoutes(app, ctxOf);
  accountDashboardRoutes(app, ctxOf);
  portalSettingsDashboardRoutes(app, ctxOf);
  upstreamDashboardRoutes(app, ctxOf);
  retentionDashboardRoutes(app, ctxOf);
  teamDashboardRoutes(app, ctxOf);
  productDashboardRoutes(app, ctxOf);
  complianceDashboardRoutes(app);
  knownVulnDashboardRoutes(app, ctxOf);
  advisoryDashboardRoutes(app, ctxOf);
  casesDashboardRoutes(app, ctxOf);
  downloadRoutes(app, ctxOf);
  // A child plugin: it inherits the sign-in and CSRF hook above.
  await app.register(reportRoutes);
  await app.register(inboxRoutes);

  app.get<{ Querystring: { welcome?: string } }>('/dashboard', async (req, reply) => {
    const s = req.session;
    // Straight from first-run set-up (site-routes.ts), which signed the administrator in.
    const welcome =
      req.query.welcome === '1' && sessionMay(s, 'admin')
        ? `Cradle is set up: ${s.company.name} and its administrator ${s.user.email} were created, and you are signed in. Your portal is ${portalUrl(app.deps.config, s.company.slug)}. Further companies are created with the operator CLI (npx cradle company create).`
        : undefined;
    const [keys, counts, kev, next, steps] = await Promise.all([
      listKeys(db, s.company.id),
      inboxCounts(db, s.company.id, new Date(), s.user.id),
      pendingAwareness(db, s.company.id),
      whatNext(db, s.company.id),
      sessionMay(s, 'admin') ? gettingStarted(db, s.company.id, { mailConfigured: app.deps.config.mail !== undefined }) : [],
    ]);
    const active = keys.filter((k) => k.status === 'active').length;
    return sendHtml(
      reply,
      dashboardPage({
        title: 'Overview',
        session: s,
        current: '/dashboard',
        notice: welcome ? { kind: 'ok', text: welcome } : undefined,
        attention: counts.overdue,
        body: html`<h1>${s.company.name}</h1>
${gettingStartedPanel(steps)}
${reportCounts(counts)}
${awarenessWaiting(kev)}
${nextPanel(next, false)}
<dl class="facts"><dt>Plan</dt><dd>${label('plan', s.company.plan)} plan</dd><dt>Portal name</dt><dd><code>${s.company.slug}</code></dd>
<dt>Signed in as</dt><dd>${s.user.email} (${ROLE_LABELS[s.user.role]})</dd>${sessionMay(s, 'read-admin') ? html`<dt>API keys</dt><dd>${active} active of ${keys.length} (<a href="/settings/api-keys">${sessionMay(s, 'admin') ? 'manage' : 'see'}</a>)</dd>` : ''}</dl>
${sessionMay(s, 'read-admin') ? html`<p><a href="/audit">Audit log</a>: sign-ins, key changes and every API key use.</p>` : ''}
${sessionMay(s, 'admin') ? html`<p><a href="${DOWNLOADS.companyExport}" download>Download all company data</a> (JSON: every record of the company, audit log included; secrets and key digests left out).</p>` : ''}`,
      }),
    );
  });

  const keysPage = async (req: FastifyRequest, extra: Omit<Parameters<typeof apiKeysPage>[0], 'session' | 'keys' | 'rateLimit'> = {}) =>
    apiKeysPage({ session: req.session, keys: await listKeys(db, req.session.company.id), rateLimit: app.deps.config.apiRateLimit, ...extra });

  app.get<{ Querystring: { revoked?: string } }>('/settings/api-keys', async (req, reply) =>
    sendHtml(reply, await keysPage(req, { notice: req.query.revoked ? { kind: 'ok', text: 'The key was revoked.' } : undefined })),
  );

  app.post('/settings/api-keys', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values: KeyFormValues = {
      name: optionalField(body.name),
      scopes: listField(body.scopes),
      expiresInDays: optionalField(body.expiresInDays),
      allowedIps: optionalField(body.allowedIps),
    };
    const days = values.expiresInDays?.trim() ? Number(values.expiresInDays) : undefined;
    const input = {
      name: values.name ?? '',
      scopes: values.scopes,
      ...(days === undefined ? {} : { expiresInDays: days }),
      allowedIps: (values.allowedIps ?? '').split(/[\s,]+/).filter(Boolean),
    };
    try {
      const key = await createKey(db, ctxOf(req), req.session.company.id, input);
      return sendHtml(reply, await keysPage(req, { issued: { key, rotated: false } }), 201);
    } catch (e) {
      if (!isAppError(e)) throw e;
      const errors = fieldSentences(e.extra.issues ?? [], {}, '');
      const status = e.code === 'VALIDATION' ? 400 : e.code === 'FORBIDDEN' ? 403 : 409;
      return sendHtml(
        reply,
        await keysPage(req, { values, errors, notice: { kind: 'bad', text: e.code === 'VALIDATION' ? 'Please correct the marked fields.' : e.message } }),
        status,
      );
    }
  });

  app.post<{ Params: { id: string } }>('/settings/api-keys/:id/rotate', async (req, reply) => {
    const key = await rotateKey(db, ctxOf(req), req.session.company.id, req.params.id);
    return sendHtml(reply, await keysPage(req, { issued: { key, rotated: true } }));
  });

  app.post<{ Params: { id: string } }>('/settings/api-keys/:id/revoke', async (req, reply) => {
    await revokeKey(db, ctxOf(req), req.session.company.id, req.params.id);
    return reply.redirect('/settings/api-keys?revoked=1', 303);
  });

  await app.register(evidenceRoutes);

  app.get('/audit', async (req, reply) => {
    const raw = Object.fromEntries(Object.entries((req.query ?? {}) as Record<string, unknown>).filter(([, v]) => v !== ''));
    const parsed = AuditFilter.safeParse(raw);
    const filter = parsed.success ? parsed.data : {};
    const companyId = req.session.company.id;
    const [{ entries, nextBefore }, members, keys] = await Promise.all([listAudit(db, companyId, filter), listMembers(db, companyId), listKeys(db, companyId)]);
    const names = new Map([...members.map((m) => [m.id, m.email] as const), ...keys.map((k) => [k.id, k.name] as const)]);
    return sendHtml(
      reply,
      auditPage(req.session, filter, entries, nextBefore, names, parsed.success ? undefined : 'Some filters were invalid and were ignored.'),
      parsed.success ? 200 : 400,
    );
  });
}
