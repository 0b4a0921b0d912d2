import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hasScope, type KeyRecord } from '../modules/keys/authenticate-key.js';
import type { OperationEnv } from '../modules/operations/operation.js';
import { requestContext } from './request-context.js';

/**
 * The environment an operation runs in, the same for every transport (REST route, MCP tool): the
 * tenant and the actor come from the authenticated key, never from the request's content.
 */
export function operationEnv(
  app: FastifyInstance,
  req: FastifyRequest,
  key: KeyRecord,
  params: Record<string, string>,
  query: Record<string, string>,
  transport: 'rest' | 'mcp',
): OperationEnv {
  return {
    db: app.deps.database.db,
    ctx: requestContext(req, { type: 'api_key', id: key.id }),
    companyId: key.companyId,
    params,
    query,
    config: app.deps.config,
    reportFiler: app.reportFiler,
    keyHas: (scope) => hasScope(key, scope),
    transport,
  };
}
