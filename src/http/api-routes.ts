import type { FastifyInstance } from 'fastify';
import { AppError, ErrorCode } from '../kernel/errors.js';
import type { RateLimitPolicy } from '../kernel/rate-limit.js';
import { createAuditWriter } from '../modules/audit/audit-writer.js';
import { API_OPERATIONS } from './api-operations.js';
import { apiKeyAuth } from './api-key-auth.js';
import type { Operation } from './operations.js';
import { requestContext } from './request-context.js';

export const API_BASE = '/api/v1';

function mount(app: FastifyInstance, op: Operation): void {
  app.route({
    method: op.method,
    url: op.path,
    config: { scope: op.scope },
    handler: async (req, reply) => {
      const key = req.apiKey;
      // The auth hook sets apiKey or throws; this guards against a route mounted outside it.
      if (!key) throw new AppError(ErrorCode.UNAUTHENTICATED, 'not authenticated');
      const result = await op.handler(
        {
          db: app.deps.database.db,
          ctx: requestContext(req, { type: 'api_key', id: key.id }),
          companyId: key.companyId,
          params: (req.params ?? {}) as Record<string, string>,
          query: (req.query ?? {}) as Record<string, string>,
          config: app.deps.config,
          nudgeWebhooks: () => app.deps.webhookWorker?.nudge(),
        },
        req.body,
      );
      if (result.contentType) reply.type(result.contentType);
      return reply.code(result.status).send(result.body);
    },
  });
}

/**
 * The key-authenticated surface: `{base_url}` routes from the operation list (and, later,
 * `/api/mcp` in the same plugin so that REST and MCP share one authentication step and one limit).
 */
export async function apiRoutes(app: FastifyInstance): Promise<void> {
  const { config } = app.deps;
  const policy: RateLimitPolicy = { name: 'key', limit: config.apiRateLimit.limit, windowMs: config.apiRateLimit.windowMs };
  const audit = createAuditWriter(app.deps.database.db, { maxInFlight: app.deps.database.kind === 'postgres' ? 4 : 1 });
  app.addHook('onClose', () => audit.drain());
  // One encapsulated plugin holds every key-authenticated route: its hooks are the single
  // authentication step, limit and audit for all of them. The MCP issue registers `/api/mcp` here,
  // beside `/api/v1`, so that both share one limit per key.
  await app.register(async (api) => {
    apiKeyAuth(api, audit, policy);
    await api.register(
      async (v1) => {
        for (const op of API_OPERATIONS) mount(v1, op);
        // Unknown paths below /api/v1 fall to the app's 404 without authenticating: the route list
        // is public (openapi.json), so hiding it behind a key would protect nothing.
      },
      { prefix: API_BASE },
    );
  });
}
