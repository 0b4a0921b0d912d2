import { z } from 'zod';
import type { InjectOptions } from 'fastify';
import { API_BASE } from '../../src/http/api-routes.js';
import type { Operation } from '../../src/modules/operations/operation.js';
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

const NO_UUID = 'ffffffff-ffff-4fff-8fff-ffffffffffff';
const NO_PRODUCT = 'no-such-product';

/**
 * Values that name no record of any company, by where they go: path parameters, query parameters
 * and the body fields that refer to a record (not a body field that names a new one, such as a
 * product's own `identifier` in an upsert).
 */
export const UNKNOWN_REFERENCES = {
  path: { id: NO_UUID, identifier: NO_PRODUCT },
  query: { product: NO_PRODUCT, saved: NO_UUID },
  body: { product: NO_PRODUCT, vulnerabilityId: NO_UUID, knownVulnerabilityId: NO_UUID, reportId: NO_UUID, target: NO_UUID },
} as const;

/**
 * The example request's path parameters (`params`, with `body.<field>` overlays) and extra query
 * with every path parameter, query parameter and body field that names a record replaced by one that
 * names none; `replaced` says which (empty: the operation names no record).
 */
export function unknownReferences(
  op: Operation,
  fixture: Record<string, string>,
): { params: Record<string, string>; query: Record<string, string>; replaced: string[] } {
  const params = { ...(op.example.params ?? {}), ...fixture };
  const query: Record<string, string> = {};
  const replaced: string[] = [];
  for (const [name, value] of Object.entries(UNKNOWN_REFERENCES.path)) {
    if (!new RegExp(`:${name}(/|$)`).test(op.path)) continue;
    params[name] = value;
    replaced.push(name);
  }
  for (const [name, value] of Object.entries(UNKNOWN_REFERENCES.query)) {
    if (!op.query?.shape[name]) continue;
    query[name] = value;
    replaced.push(`?${name}`);
  }
  for (const [name, value] of Object.entries(UNKNOWN_REFERENCES.body)) {
    if (!(op.input instanceof z.ZodObject && op.input.shape[name])) continue;
    params[`body.${name}`] = value;
    replaced.push(`body.${name}`);
  }
  return { params, query, replaced };
}
