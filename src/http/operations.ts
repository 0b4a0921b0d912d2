import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Db } from '../db/client.js';
import type { Context } from '../kernel/context.js';
import type { Scope } from '../modules/keys/keys.schemas.js';

/** What a transport hands an operation: the tenant is fixed by the key, never by the request. */
export type OperationEnv = {
  db: Db;
  ctx: Context;
  companyId: string;
  params: Record<string, string>;
  query: Record<string, string>;
  config: Config;
  /** Wakes the webhook worker after a change that queued an event (no-op without a worker). */
  nudgeWebhooks(): void;
};

export type OperationResult = {
  status: number;
  body: unknown;
  /** Sends `body` (then a string) as is with this media type, instead of serialising it as JSON. */
  contentType?: string;
};

/**
 * One verb as every transport sees it (conventions.md "operation descriptor"): the REST routes,
 * the MCP tools, the OpenAPI paths and the generated security tests all come from one list.
 */
export type Operation = {
  name: string;
  summary: string;
  scope: Scope;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path below `{base_url}`, Fastify syntax (`/vulnerabilities/:id`). */
  path: string;
  mcpTool?: string;
  /** Success statuses, first the usual one (OpenAPI); default [200]. */
  statuses?: number[];
  /** Body schema (OpenAPI, MCP input); the verb parses with it again. */
  input?: z.ZodType;
  /** Query-string schema (OpenAPI parameters, MCP input); the verb parses with it again. */
  query?: z.ZodObject;
  /**
   * Schema of the success body (OpenAPI responses, MCP structured output, the generated response
   * walk). Every operation that answers with a body declares one.
   */
  output?: z.ZodType;
  /** A valid request, for the generated tests: path params, query and body. */
  example: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown };
  handler(env: OperationEnv, body: unknown): Promise<OperationResult>;
};
