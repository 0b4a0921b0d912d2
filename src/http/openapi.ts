import { z } from 'zod';
import { type Config, siteUrl } from '../config.js';
import { BULK_MAX_ITEMS, BulkItem } from '../modules/reports/file-report-batch.js';
import { SCOPES } from '../modules/keys/keys.schemas.js';
import { API_OPERATIONS } from './api-operations.js';
import { API_BASE } from './api-routes.js';
import { INTAKE_BODY_LIMITS } from './intake-limits.js';
import { errorResponses, JSON_BODY_LIMIT, RATE_HEADERS } from './operation-errors.js';
import { type Json, queryParameters, schemaOf, TAG_DESCRIPTIONS } from './openapi-schemas.js';
import type { Operation } from '../modules/operations/operation.js';

const PROBLEM_REF = { $ref: '#/components/schemas/Problem' };
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: PROBLEM_REF } } });
/** Response header fields, by name, with their descriptions (Retry-After carries seconds). */
const headerObjects = (headers: Record<string, string>): Json =>
  Object.fromEntries(
    Object.entries(headers).map(([name, description]) => [name, { description, schema: { type: name === 'Retry-After' ? 'integer' : 'string' } }]),
  );

/** One content entry per media type (default `application/json`), all with the same schema. */
const mediaTypes = (types: readonly string[] | undefined, schema: Json): Json =>
  Object.fromEntries((types ?? ['application/json']).map((t) => [t, { schema }]));

/** A body's size limit, in prose and as the `x-max-bytes` extension (beyond it: 413). */
const bodyLimit = (n: number): Json => ({
  description: `At most ${n % (1024 * 1024) === 0 ? `${n / 1024 / 1024} MiB` : `${n} bytes`} (${n} bytes); larger bodies are refused with 413.`,
  'x-max-bytes': n,
});

const openApiPath = (p: string) => p.replace(/:([A-Za-z]+)/g, '{$1}');

function operationObject(op: Operation, components: Json, config: Config): Json {
  const params = [...op.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const query = queryParameters(op, components);
  const statuses = op.statuses ?? [200];
  const responses: Json = Object.fromEntries(
    statuses.map((s) => [
      String(s),
      s === 204
        ? { description: 'Done; no content.' }
        : {
            description: s === 201 ? 'Created.' : s === 202 ? 'Accepted.' : 'OK.',
            content: mediaTypes(op.produces, op.output ? schemaOf(op.output, components, 'output') : {}),
          },
    ]),
  );
  for (const [status, e] of errorResponses(op))
    responses[String(status)] = { ...problem(e.description), ...(e.headers ? { headers: headerObjects(e.headers) } : {}) };
  return {
    operationId: op.name,
    summary: op.summary,
    description: `Requires the scope \`${op.scope}\` (or a key without scopes).${op.mcpTool ? ` Also available as the MCP tool \`${op.mcpTool}\`.` : ''}`,
    tags: [op.name.split('.')[0]],
    security: [{ bearer: [] }],
    'x-scope': op.scope,
    ...(op.mcpTool ? { 'x-mcp-tool': op.mcpTool } : {}),
    ...(params.length || query.length ? { parameters: [...params, ...query] } : {}),
    ...(op.input
      ? {
          requestBody: {
            required: op.optionalBody !== true,
            ...bodyLimit(op.rawBody ? op.rawBody.maxBytes(config) : (op.jsonBodyLimit ?? JSON_BODY_LIMIT)),
            content: mediaTypes(op.rawBody?.mediaTypes, schemaOf(op.input, components)),
          },
        }
      : {}),
    responses,
  };
}

const BulkRequest = z.object({ submissions: z.array(BulkItem).min(1).max(BULK_MAX_ITEMS) }).meta({ id: 'BulkRequest' });
const BulkResponse = z
  .object({
    results: z.array(
      z.object({
        slug: z.string(),
        ok: z.boolean(),
        submissionId: z.string().optional(),
        createdAt: z.iso.datetime().optional(),
        error: z.string().optional(),
      }),
    ),
    summary: z.object({ total: z.number().int(), succeeded: z.number().int(), failed: z.number().int() }),
  })
  .meta({ id: 'BulkResponse' });

/** `/openapi.json`: OpenAPI 3.1 for version 1, from the operation list and its Zod schemas. */
export function buildOpenApi(config: Config): Json {
  const components: Json = {
    Problem: {
      type: 'object',
      description: 'RFC 9457 problem details.',
      required: ['type', 'title', 'status', 'detail'],
      properties: {
        type: { type: 'string', format: 'uri' },
        title: { type: 'string' },
        status: { type: 'integer' },
        detail: { type: 'string' },
        instance: { type: 'string' },
        requestId: { type: 'string' },
        errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
      },
    },
  };
  const paths: Json = {};
  for (const op of API_OPERATIONS) {
    const p = `${API_BASE}${openApiPath(op.path)}`;
    paths[p] = { ...(paths[p] as Json | undefined), [op.method.toLowerCase()]: operationObject(op, components, config) };
  }
  paths['/api/portal/batch'] = {
    post: {
      operationId: 'portal.batch',
      summary: `File up to ${BULK_MAX_ITEMS} reports to one or more companies at once (public, no key)`,
      description:
        "A malformed envelope (not an object, no or empty `submissions`, more than 20 items, or an item failing the portal form's validation) is refused whole with 400 and nothing is filed. Otherwise the answer is 200 and each result says whether its item was filed. 3 batches per minute per client address (IPv6 per /64).",
      tags: ['portal'],
      security: [],
      requestBody: { required: true, ...bodyLimit(INTAKE_BODY_LIMITS.bulk), content: { 'application/json': { schema: schemaOf(BulkRequest, components) } } },
      responses: {
        '200': { description: "Every item's outcome, in request order.", content: { 'application/json': { schema: schemaOf(BulkResponse, components) } } },
        '400': problem('Malformed envelope: the message names the item index and field; nothing was filed.'),
        '413': problem(`The body is larger than ${INTAKE_BODY_LIMITS.bulk / 1024 / 1024} MiB.`),
        '415': problem('The body is not `application/json`.'),
        '429': { ...problem('More than 3 batches per minute from this address (IPv6: per /64).'), headers: headerObjects(RATE_HEADERS) },
        '503': problem('The database is unavailable: nothing was filed; retry shortly.'),
      },
    },
  };
  const origin = siteUrl(config);
  const tagNames = [...new Set([...API_OPERATIONS.map((o) => o.name.split('.')[0] as string), 'portal'])];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Cradle API',
      version: '1.0.0',
      description: `Coordinated vulnerability disclosure and EU Cyber Resilience Act compliance. Authenticate with \`Authorization: Bearer <key>\` (64 lowercase hex; keys are created by an administrator of an Enterprise company in the dashboard). Scopes: ${SCOPES.join(', ')}. Errors are application/problem+json.`,
      // The project's licence (LICENSE, package.json), as its SPDX identifier.
      license: { name: 'Apache License 2.0', identifier: 'Apache-2.0' },
      contact: { name: 'The operator of this Cradle instance', url: `${origin}/` },
    },
    // Relative: the origin that serves this document (PUBLIC_URL; a bare origin, no path), whichever instance it is.
    servers: [{ url: '/', description: `This Cradle instance (${origin})` }],
    tags: tagNames.map((name) => {
      const description = TAG_DESCRIPTIONS[name];
      if (!description) throw new Error(`OpenAPI tag "${name}" has no description in TAG_DESCRIPTIONS (src/http/openapi-schemas.ts)`);
      return { name, description };
    }),
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: 64 lowercase hexadecimal characters.' } },
    },
  };
}
