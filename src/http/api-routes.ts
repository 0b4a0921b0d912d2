import type { FastifyInstance, FastifyPluginAsync, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { AppError, ErrorCode } from '../kernel/errors.js';
import { sharedJson } from '../kernel/shared-value.js';
import type { RateLimitPolicy } from '../kernel/rate-limit.js';
import { createAuditWriter } from '../modules/audit/audit-writer.js';
import { createKeyCache } from '../modules/keys/key-cache.js';
import { API_OPERATIONS } from './api-operations.js';
import { apiKeyAuth } from './api-key-auth.js';
import type { Operation } from '../modules/operations/operation.js';
import { holdEvidenceSlot } from './evidence-slot.js';
import { readRawBody } from './raw-body.js';
import { operationEnv } from './operation-env.js';
import { operationInput } from '../modules/operations/operation-input.js';
import { API_PLAN } from '../kernel/access.js';

export const API_BASE = '/api/v1';

const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;
const carriesBody = (req: FastifyRequest): boolean => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * One rule for the media type of a JSON operation's body (docs/api.md "Errors"): anything but
 * `application/json` is refused with 415, whether Fastify could parse it (text, a form) or not. A
 * route hook, so it runs after the credential checks, which read a form's fields too (a key in one
 * is still refused as a misplaced key). An operation that reads no body refuses only a body sent.
 */
const jsonBodyOnly =
  (op: Operation): preHandlerHookHandler =>
  (req, _reply, done) => {
    const type = req.headers['content-type'];
    if (type === undefined || JSON_MEDIA_TYPE.test(type) || (op.input === undefined && !carriesBody(req))) return done();
    const given = type.split(';')[0]?.trim().slice(0, 100) || 'an empty Content-Type';
    done(new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `${given} is not accepted here; send the body as application/json`));
  };

function mount(app: FastifyInstance, op: Operation): void {
  app.route({
    method: op.method,
    url: op.path,
    config: { scope: op.scope, minPlan: op.minPlan ?? API_PLAN },
    ...(op.rawBody
      ? { bodyLimit: op.rawBody.maxBytes(app.deps.config) }
      : op.method === 'GET'
        ? {}
        : { preHandler: jsonBodyOnly(op), ...(op.jsonBodyLimit ? { bodyLimit: op.jsonBodyLimit } : {}) }),
    handler: async (req, reply) => {
      const key = req.apiKey;
      // The auth hook sets apiKey or throws; this guards against a route mounted outside it.
      if (!key) throw new AppError(ErrorCode.UNAUTHENTICATED, 'not authenticated');
      const query = (req.query ?? {}) as Record<string, string>;
      const body = operationInput(op, query, req.body);
      const result = await op.handler(operationEnv(app, req, key, (req.params ?? {}) as Record<string, string>, query, 'rest'), body);
      if (result.headers) reply.headers(result.headers);
      if (result.contentType) reply.type(result.contentType);
      // A cached, shared body (the product list) is sent as the JSON text it keeps.
      const text = result.contentType ? undefined : sharedJson(result.body);
      if (text !== undefined) reply.type('application/json; charset=utf-8');
      return reply.code(result.status).send(text ?? result.body);
    },
  });
}

/**
 * An operation whose body is a document the verb parses itself gets its own scope: only its media
 * types are read, as raw bytes (never parsed twice, never held as a string and a tree here), up to
 * its own size limit; the 1 MiB limit of every other route is untouched.
 */
async function mountRaw(scope: FastifyInstance, op: Operation & { rawBody: NonNullable<Operation['rawBody']> }): Promise<void> {
  const accepted = op.rawBody.mediaTypes.join(', ');
  scope.removeAllContentTypeParsers();
  const maxBytes = op.rawBody.maxBytes(scope.deps.config);
  scope.addContentTypeParser([...op.rawBody.mediaTypes], (req, payload, done) => readRawBody(req, payload, maxBytes, done));
  scope.addContentTypeParser('*', (req, _payload, done) => {
    const given = (req.headers['content-type'] ?? '').split(';')[0]?.trim() || 'no Content-Type';
    done(new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `${given.slice(0, 100)} is not accepted here; send one of: ${accepted}`), undefined);
  });
  // The shared auth step defers "no key" until the body is read when a body is present (a key
  // may hide in a JSON field); a document route refuses at once, before reading megabytes.
  scope.addHook('onRequest', async (req) => {
    if (req.missingKeyDeferred) throw new AppError(ErrorCode.UNAUTHENTICATED, 'send an API key in the Authorization header: "Authorization: Bearer <key>"');
  });
  // The company's evidence slot before a byte of the document is read (docs/evidence.md "Limits").
  scope.addHook('preParsing', async (req, reply, payload) => {
    if (req.apiKey) holdEvidenceSlot(req, reply, req.apiKey.companyId, maxBytes);
    return payload;
  });
  mount(scope, op);
}

/**
 * The key-authenticated surface: `{base_url}` routes from the operation list and `/api/mcp`, in
 * one plugin so that REST and MCP share one authentication step, one limit per key and the audit.
 */
/**
 * `alongside`: other key-authenticated surfaces (the MCP endpoint) mounted inside the same
 * authentication, limit and audit scope; app.ts hands them in, so this transport does not import
 * the other (docs/architecture.md, layers).
 */
export async function apiRoutes(app: FastifyInstance, opts: { alongside?: FastifyPluginAsync[] }): Promise<void> {
  const { config } = app.deps;
  const policy: RateLimitPolicy = { name: 'key', limit: config.apiRateLimit.limit, windowMs: config.apiRateLimit.windowMs };
  const audit = createAuditWriter(app.deps.database.db, { maxInFlight: app.deps.database.kind === 'postgres' ? 4 : 1 });
  // Keys by digest in memory, current to the request (the `keys` version domain, docs/adr/0017-version-domains.md).
  const keys = await createKeyCache(app.deps.database);
  app.addHook('onClose', async () => {
    await audit.drain();
    await keys.close();
  });
  // One encapsulated plugin holds every key-authenticated route: its hooks are the single
  // authentication step, limit and audit for all of them, `/api/v1` and `/api/mcp` alike.
  await app.register(async (api) => {
    apiKeyAuth(api, audit, policy, keys);
    await api.register(
      async (v1) => {
        for (const op of API_OPERATIONS) {
          const { rawBody } = op;
          if (rawBody) await v1.register((scope) => mountRaw(scope, { ...op, rawBody }));
          else mount(v1, op);
        }
        // Unknown paths below /api/v1 fall to the app's 404 without authenticating: the route list
        // is public (openapi.json), so hiding it behind a key would protect nothing.
      },
      { prefix: API_BASE },
    );
    for (const plugin of opts.alongside ?? []) await api.register(plugin);
  });
}
