import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openRequestScope } from '../db/tenant-scope.js';
import { AppError, ErrorCode } from '../kernel/errors.js';
import { type RateLimitDecision, type RateLimitPolicy, rateLimitHeaders } from '../kernel/rate-limit.js';
import type { AuditWriter } from '../modules/audit/audit-writer.js';
import { checkKey, hasScope, type KeyRecord } from '../modules/keys/authenticate-key.js';
import type { KeyCache } from '../modules/keys/key-cache.js';
import type { Plan } from '../modules/companies/companies.schemas.js';
import { KEY_FORMAT } from '../modules/keys/keys.schemas.js';
import { keyUseRow } from './key-use-audit.js';
import { problemBody } from './problem.js';
import { candidatesOf, MAX_KEY_CANDIDATES, type Misplaced, misplacedInBody, misplacedInHead } from './misplaced-credential.js';
import { createRefusalGate, unauthenticatedPolicy } from './refusal-gate.js';
import { API_PLAN } from '../kernel/access.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated key (set only once every check has passed). */
    apiKey: KeyRecord | undefined;
    /** The key the request presented, once known, even when refused: whose audit log gets the row. */
    presentedKey: KeyRecord | undefined;
    rateDecision: RateLimitDecision | undefined;
    /**
     * What the audit row names instead of method and path (the MCP transport sets the tool), and
     * its outcome when the HTTP status does not carry it (a tool error travels in a 200 answer).
     */
    auditLabel: { action: string; details: Record<string, unknown>; outcome?: 'success' | 'denied' | 'failure' } | undefined;
    missingKeyDeferred: boolean;
  }
  interface FastifyContextConfig {
    /** The scope a route needs (docs/access.md "Scopes"); MCP checks per tool instead. */
    scope?: string;
    /** The lowest plan whose keys may call the route (default Enterprise, docs/access.md "Authenticating a request"). */
    minPlan?: Plan;
  }
}

const BEARER = /^bearer +(\S+) *$/i;
const unauthenticated = (m: string) => new AppError(ErrorCode.UNAUTHENTICATED, m);
/** A 403 naming the scope, in its detail and in its `WWW-Authenticate` challenge (problem.ts). */
const missingScope = (scope: string) =>
  new AppError(ErrorCode.FORBIDDEN, `this API key lacks the scope "${scope}"`, { challenge: { error: 'insufficient_scope', scope } });

function misplacedError(m: Misplaced): AppError {
  return new AppError(
    ErrorCode.UNAUTHENTICATED,
    `API keys are accepted only in the Authorization header as "Bearer <key>"; this request carries one in the ${m.where} "${m.name}". ` +
      'Treat a key sent that way as exposed (URLs and cookies end up in logs) and rotate it.',
    // RFC 6750 section 3.1: a credential sent by a method this resource does not take.
    { challenge: { error: 'invalid_request' } },
  );
}

/**
 * Refuses a misplaced credential: a credential-like name always, a key-shaped value when it is a
 * real key. A real key found there is attributed, so the refusal lands in its company's audit log.
 */
async function assertNoMisplaced(keys: KeyCache, req: FastifyRequest, found: Misplaced[]): Promise<void> {
  const named = found.find((m) => m.named);
  if (named) throw misplacedError(named);
  const candidates = candidatesOf(found);
  if (candidates.length > MAX_KEY_CANDIDATES) {
    throw new AppError(
      ErrorCode.VALIDATION,
      `this request carries ${candidates.length} values shaped like API keys (64 hexadecimal characters) in its query, cookies or body fields; at most ${MAX_KEY_CANDIDATES} are accepted, and keys belong in the Authorization header only`,
    );
  }
  for (const m of found) {
    const key = m.candidate === undefined ? undefined : await keys.find(m.candidate);
    if (key) req.presentedKey ??= key;
    if (key) throw misplacedError(m);
  }
}

const hasBody = (req: FastifyRequest): boolean => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * The one authentication step of `/api/v1/*` and `/api/mcp` (docs/access.md "Authenticating a
 * request", "Scopes", "Rate limit"; docs/api.md "Errors"). Registered inside the plugin that holds
 * those routes. Order of checks: misplaced credential, missing, malformed, unknown or revoked
 * (401); expired, suspended, plan below Enterprise (401); address outside the allowlist (403); rate
 * limit (429); scope (403).
 */
export function apiKeyAuth(app: FastifyInstance, audit: AuditWriter, policy: RateLimitPolicy, keys: KeyCache): void {
  const { rateLimiter } = app.deps;
  app.decorateRequest('apiKey', undefined);
  app.decorateRequest('presentedKey', undefined);
  app.decorateRequest('rateDecision', undefined);
  app.decorateRequest('auditLabel', undefined);
  app.decorateRequest('missingKeyDeferred', false);
  // Only on the requests of this plugin: their refusals carry a Bearer challenge (problem.ts).
  app.decorateRequest('bearerRoute', true);

  const gate = createRefusalGate(rateLimiter, unauthenticatedPolicy(app.deps.config.apiUnauthenticatedLimit));
  app.addHook('onRequest', async (req) => {
    const header = req.headers.authorization;
    const value = header === undefined ? undefined : BEARER.exec(header)?.[1];
    // An address that keeps sending requests without a known key is held off before any lookup;
    // a key this instance already knows still passes (a client behind the same NAT).
    const held = gate.heldFor(req.ip);
    if (held > 0 && !(value !== undefined && keys.known(value))) {
      throw new AppError(ErrorCode.RATE_LIMITED, `too many requests without a valid API key from your network; retry in ${held} seconds`, {
        retryAfterSeconds: held,
      });
    }
    // Known first, so that even a refusal for a misplaced copy lands in the key's company log. Found
    // by its digest before its company is known (the cache reads as Cradle's own code, ADR 0011).
    const key = value !== undefined && KEY_FORMAT.test(value) ? await keys.find(value) : undefined;
    req.presentedKey = key;
    const misplaced = misplacedInHead(req);
    if (misplaced.length > 0) await assertNoMisplaced(keys, req, misplaced);
    if (header === undefined) {
      // A body may carry the key; say so rather than "missing" once the body has been read.
      if (hasBody(req)) {
        req.missingKeyDeferred = true;
        return;
      }
      throw unauthenticated('send an API key in the Authorization header: "Authorization: Bearer <key>"');
    }
    if (value === undefined || !KEY_FORMAT.test(value)) {
      throw unauthenticated('malformed Authorization header: expected "Bearer " and 64 lowercase hexadecimal characters');
    }
    if (!key) throw unauthenticated('unknown or revoked API key');
    // Read once: Fastify builds `routeOptions` anew (and asks the router about versions) on each access.
    const route = req.routeOptions.config;
    const minPlan = route.minPlan ?? API_PLAN;
    const refusal = checkKey(key, req.ip, new Date(), minPlan);
    if (refusal?.reason === 'expired') throw unauthenticated('this API key has expired; create a new one in the dashboard');
    if (refusal?.reason === 'suspended') throw unauthenticated('this API key is suspended by the operator');
    if (refusal?.reason === 'company-suspended') {
      throw new AppError(ErrorCode.FORBIDDEN, 'this company is suspended: the operator has scheduled its deletion; ask the operator if that is a mistake');
    }
    if (refusal?.reason === 'plan') {
      throw unauthenticated(
        minPlan === API_PLAN
          ? 'API access requires the Enterprise plan'
          : `this endpoint is available from the ${minPlan} plan upward; this company is on the ${key.plan} plan`,
      );
    }
    if (refusal?.reason === 'address') {
      throw new AppError(ErrorCode.FORBIDDEN, "this request's source address is not in the API key's allowlist");
    }
    const decision = await rateLimiter.hit(policy, key.id);
    req.rateDecision = decision;
    if (!decision.allowed) {
      throw new AppError(ErrorCode.RATE_LIMITED, `rate limit of ${policy.limit} requests per ${policy.windowMs / 1000} seconds per API key exceeded`, {
        retryAfterSeconds: decision.retryAfterSeconds,
      });
    }
    const scope = route.scope;
    if (scope !== undefined && !hasScope(key, scope)) throw missingScope(scope);
    req.apiKey = key;
    openRequestScope(key.companyId);
  });

  // Waits only when the body holds something credential-like (a request without a body, most of
  // them, goes on at once).
  app.addHook('preHandler', (req, _reply, done) => {
    const deferred = () => (req.missingKeyDeferred ? unauthenticated('send an API key in the Authorization header: "Authorization: Bearer <key>"') : undefined);
    const misplaced = misplacedInBody(req.body);
    if (misplaced.length === 0) return done(deferred());
    assertNoMisplaced(keys, req, misplaced).then(() => done(deferred()), done);
  });

  // Runs for every answer, success or refusal: the fields go on, then the audit row is committed
  // before the first byte leaves (group commit), so an acknowledged request always has its row.
  app.addHook('onSend', async (req, reply: FastifyReply, payload) => {
    const fields = rateLimitHeaders(
      policy,
      req.rateDecision ?? { allowed: true, limit: policy.limit, remaining: policy.limit, resetSeconds: 0, retryAfterSeconds: 0 },
    );
    reply.header('ratelimit-policy', fields['ratelimit-policy']);
    if (req.rateDecision) reply.header('ratelimit', fields.ratelimit);
    const key = req.presentedKey;
    if (!key) {
      if (reply.statusCode === 401 || reply.statusCode === 403 || reply.statusCode === 400) {
        // No key, or one that matches none: there is no company whose log could hold the row.
        req.log.info({ ip: req.ip, method: req.method, path: req.url.split('?')[0], status: reply.statusCode }, 'API request refused without a known key');
        await gate.count(req.ip);
      }
      return payload;
    }
    const row = keyUseRow(req, key, reply.statusCode);
    try {
      await audit.write(row, req.apiKey ? { keyId: key.id, at: row.at as Date, ip: req.ip ?? null } : undefined);
      return payload;
    } catch (err) {
      // Fail closed: without its audit row the request is not acknowledged as done.
      req.log.error({ err }, 'audit write failed; answering 503');
      reply.code(503).type('application/problem+json; charset=utf-8');
      const body = problemBody(new AppError(ErrorCode.UNAVAILABLE, 'the audit log could not be written; retry later'), req, app.deps.config.publicUrl.origin);
      return JSON.stringify(body);
    }
  });
}

/**
 * For transports that check scopes per call rather than per route (MCP tools, each checking its own
 * scope: docs/access.md "Scopes"). Throws FORBIDDEN naming the scope.
 */
export function requireScope(req: FastifyRequest, scope: string): KeyRecord {
  const key = req.apiKey;
  if (!key) throw unauthenticated('not authenticated');
  if (!hasScope(key, scope)) throw missingScope(scope);
  return key;
}

/** Names the audit row of this request after an MCP tool instead of method and path. */
export function labelAudit(req: FastifyRequest, action: string, details: Record<string, unknown>, outcome?: 'success' | 'denied' | 'failure'): void {
  req.auditLabel = { action, details, ...(outcome ? { outcome } : {}) };
}
