import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import formbody from '@fastify/formbody';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { type Config, siteUrl } from './config.js';
import type { Database } from './db/client.js';
import { runInRequestScope } from './db/tenant-scope.js';
import { bulkRoutes } from './http/bulk-routes.js';
import { apiRoutes } from './http/api-routes.js';
import { mcpRoutes } from './mcp/mcp-routes.js';
import { discoveryRoutes } from './http/discovery-routes.js';
import { healthRoutes } from './http/health.js';
import { installMetrics } from './http/metrics-routes.js';
import { installTracing } from './http/tracing-hooks.js';
import type { IntakeRateLimits } from './http/intake-limits.js';
import { JSON_BODY_LIMIT } from './http/operation-errors.js';
import { problemPages } from './web/problem-pages.js';
import { objectBodyOnly } from './web/object-body.js';
import { PROBLEM, problemBody, problemHeaders, sendProblem, toAppError } from './http/problem.js';
import { securityHeaders } from './http/security-headers.js';
import { sessionRoutes } from './http/session-routes.js';
import { type Zone, zoneConstraint, zoneOf } from './http/zones.js';
import { AppError, ErrorCode } from './kernel/errors.js';
import type { RateLimiter } from './kernel/rate-limit.js';
import { createEvidenceGate, type EvidenceGate } from './kernel/evidence-gate.js';
import { holdOffloadPool } from './kernel/offload-pool.js';
import { createReportFiler, type ReportFiler } from './modules/reports/file-report.js';
import { assetRoutes } from './web/assets.js';
import { dashboardRoutes } from './web/dashboard/dashboard-routes.js';
import { inviteRoutes } from './web/invite-routes.js';
import { loginRoutes } from './web/dashboard/login-routes.js';
import { errorPage } from './web/pages/error-page.js';
import { portalRoutes } from './web/portal-routes.js';
import type { SecurityTxtSigner } from './web/portal/security-txt-signer.js';
import { siteRoutes } from './web/site-routes.js';
import { participantLinkRoutes } from './web/coordination/participant-link-routes.js';

export type Deps = {
  config: Config;
  database: Database;
  /** Shared by every per-key and per-address limit (memory, or Redis when REDIS_URL is set). */
  rateLimiter: RateLimiter;
  /** Files reports for every surface by group commit (`app.reportFiler`); buildApp creates one when none is given. */
  reportFiler?: ReportFiler;
  /** Overrides of the intake limits, for benchmarks only; production uses the defaults of docs/intake.md "Limits". */
  rateLimits?: Partial<IntakeRateLimits>;
  /** Signs every portal's security.txt, when the operator configured a key (loaded and checked by server.ts). */
  securityTxtSigner?: SecurityTxtSigner;
  /** Set by server.ts on SIGTERM so /readyz turns 503 while in-flight requests finish. */
  shuttingDown?: boolean;
};

declare module 'fastify' {
  interface FastifyInstance {
    deps: Deps;
    /** Files reports (form, bulk, REST, MCP) by group commit: src/modules/reports/file-report.ts. */
    reportFiler: ReportFiler;
    /** Admits evidence documents before their bodies are read: src/kernel/evidence-gate.ts. */
    evidenceGate: EvidenceGate;
  }
  interface FastifyRequest {
    zone: Zone;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
// The probes and the metrics answer on any host: orchestrators and Prometheus reach instances by address.
const HEALTH_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Whether the client would rather read an HTML page than problem+json (browsers navigating). */
const prefersHtml = (accept: string | undefined): boolean => !!accept && accept.includes('text/html') && !accept.startsWith('application/json');

/** Builds the application without listening, so tests can drive it with `inject()`. */
export async function buildApp(deps: Deps, logger?: FastifyBaseLogger): Promise<FastifyInstance> {
  const { config } = deps;
  const origin = siteUrl(config);
  function replyWithError(err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
    const appErr = toAppError(err, req.routeOptions?.bodyLimit);
    const status = PROBLEM[appErr.code].status;
    if (status >= 500) req.log.error({ err }, 'request failed');
    else if (!(err instanceof AppError)) req.log.info({ code: (err as { code?: string }).code }, appErr.message);
    if (prefersHtml(req.headers.accept)) {
      const body = problemBody(appErr, req, origin);
      problemHeaders(reply, appErr);
      return reply
        .code(status)
        .type('text/html; charset=utf-8')
        .send(errorPage(status, body.title, body.detail, req.id, { formPost: req.method === 'POST' }));
    }
    return sendProblem(reply, appErr, origin);
  }
  const app = Fastify({
    // The router's own refusals answer like every other error (problem+json or an HTML page), and
    // never echo the whole URL back. A path segment longer than any id is simply not found.
    frameworkErrors: (err, req, reply) =>
      replyWithError(
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new AppError(ErrorCode.NOT_FOUND, 'no record has an id that long')
          : err.code === 'FST_ERR_BAD_URL'
            ? new AppError(ErrorCode.VALIDATION, 'the URL is not valid (malformed percent-encoding)')
            : err,
        req,
        reply,
      ),
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    // A hop count becomes a function: Fastify's typings take no number.
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (
            (hops: number) => (_addr: string, i: number) =>
              i < hops
          )(config.trustProxy)
        : config.trustProxy,
    bodyLimit: JSON_BODY_LIMIT,
    // An incoming X-Request-Id is kept when it is a plain token (for tracing across proxies); anything
    // else is replaced, so a client cannot inject text into our logs through it.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { constraints: { zone: zoneConstraint(config) } },
    return503OnClosing: true,
  });
  const reportFiler = deps.reportFiler ?? createReportFiler(deps.database);
  app.decorate('deps', deps);
  app.decorate('reportFiler', reportFiler);
  app.decorate('evidenceGate', createEvidenceGate({ maxBytes: config.evidenceInflightMaxBytes, perCompanyBytes: config.evidenceMaxBytes }));
  // In-flight requests finish first (Fastify), so this only waits for filings with no one waiting.
  app.addHook('onClose', () => reportFiler.drain());
  // The worker pool's last holder (this app or the triage runner) ends its workers once their jobs finish.
  app.addHook('onClose', holdOffloadPool());
  app.decorateRequest('zone', {
    getter(this: { raw: IncomingMessage }) {
      return zoneOf(config, this.raw);
    },
  });

  // Traces, when configured, wrap everything that follows, the tenant scope's hook included.
  if (config.tracing) await installTracing(app, config.tracing);
  // First of all hooks: the rest of the request runs in its own tenant scope, closed until
  // authentication or the portal opens it for one company (src/db/tenant-scope.ts, ADR 0009).
  app.addHook('onRequest', (_req, _reply, done) => runInRequestScope(done));
  // Hooks on every request that never wait are written with `done` (Fastify runs the next one at
  // once; an async hook costs promises on every request, and with the tenant scope each promise is
  // tracked: ADR 0015).
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    if (req.zone.kind === 'other' && !HEALTH_PATHS.has(req.url.split('?')[0] ?? '')) {
      throw new AppError(ErrorCode.MISDIRECTED, `this server answers for ${config.publicUrl.host} and its portals {slug}.${config.publicUrl.host}`);
    }
    done();
  });
  securityHeaders(app);

  app.setErrorHandler(replyWithError);
  app.setNotFoundHandler((req, reply) => {
    const err = new AppError(ErrorCode.NOT_FOUND, `no resource at ${req.method} ${req.url.split('?')[0]}`);
    if (prefersHtml(req.headers.accept)) {
      return reply
        .code(404)
        .type('text/html; charset=utf-8')
        .send(errorPage(404, 'Not found', err.message, req.id));
    }
    return sendProblem(reply, err, origin);
  });

  await app.register(formbody, { bodyLimit: 256 * 1024 });
  await app.register(healthRoutes);
  if (config.metrics) await installMetrics(app, deps.database.db, config.metrics);
  await app.register(assetRoutes);
  await app.register(async (site) => {
    site.addHook('onRoute', (route) => {
      route.constraints = { ...route.constraints, zone: 'site' };
    });
    await site.register(problemPages);
    await site.register(bulkRoutes);
    await site.register(discoveryRoutes);
    await site.register(async (web) => {
      web.addHook('preValidation', objectBodyOnly);
      await web.register(siteRoutes);
      await web.register(participantLinkRoutes);
      await web.register(loginRoutes);
      await web.register(inviteRoutes);
      await web.register(sessionRoutes);
      await web.register(dashboardRoutes);
    });
    // `/api/v1/*` (and later `/api/mcp`): one bearer-key authentication step, limit and audit.
    await site.register(apiRoutes, { alongside: [mcpRoutes] });
  });
  await app.register(async (portal) => {
    portal.addHook('onRoute', (route) => {
      route.constraints = { ...route.constraints, zone: 'portal' };
    });
    portal.addHook('preValidation', objectBodyOnly);
    await portal.register(portalRoutes);
  });
  return app;
}
