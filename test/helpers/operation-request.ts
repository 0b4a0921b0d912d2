import type { InjectOptions } from 'fastify';
import { API_BASE } from '../../src/http/api-routes.js';
import type { Operation } from '../../src/http/operations.js';
import { SITE } from './app.js';
import { exampleBody } from './operation-fixtures.js';

/**
 * The inject options of an operation's example request, with these path parameters, headers and
 * extra query; fixture values named `body.<field>` replace that field of the example body.
 */
export function operationRequest(
  op: Operation,
  headers: Record<string, string>,
  extra: Partial<InjectOptions> = {},
  query: Record<string, string> = {},
  params: Record<string, string> = op.example.params ?? {},
): InjectOptions {
  let path = op.path;
  for (const [k, v] of Object.entries(params)) if (!k.startsWith('body.')) path = path.replace(`:${k}`, encodeURIComponent(v));
  const qs = new URLSearchParams({ ...(op.example.query ?? {}), ...query }).toString();
  const body = exampleBody(op, params);
  return {
    method: op.method,
    url: `${API_BASE}${path}${qs ? `?${qs}` : ''}`,
    headers: { host: SITE, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    ...extra,
  };
}
