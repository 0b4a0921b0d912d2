import { Readable } from 'node:stream';
import type { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { Context } from '../../kernel/context.js';
import { type Access, type Need, type Plan, SCOPE_ACCESS, type Scope } from '../../kernel/access.js';

/** The statuses an operation's own verb may add (`Operation.errors`); the others are derived (src/http/operation-errors.ts). */
export type OperationErrorStatus = 404 | 409 | 422;

/** The names of a path template's parameters: `/vulnerabilities/:id/article14/:stage` -> 'id' | 'stage'. */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;

/**
 * The path parameters of an operation, typed from its path template: each one a string, always
 * there (the REST router matched it; the MCP tool requires it, src/mcp/tool-schemas.ts). An
 * operation seen as any operation (a transport's list) has a record of them.
 */
export type PathParams<P extends string> = string extends P ? Record<string, string> : { readonly [K in ParamNames<P>]: string };

/**
 * The app's long-lived services an operation may use, declared by the module that provides each
 * (`reportFiler`: src/modules/reports/reports.operations.ts) through declaration merging, so that
 * this descriptor names no feature module (docs/architecture.md "Modules").
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- an interface so that modules can add to it
export interface OperationServices {}

/** What a transport hands an operation: the tenant is fixed by the key, never by the request. */
export type OperationEnv<P extends string = string> = OperationServices & {
  db: Db;
  ctx: Context;
  /** Which transport called: a report filed through an MCP tool records the source `mcp`. REST when absent. */
  transport?: 'rest' | 'mcp';
  companyId: string;
  params: PathParams<P>;
  query: Record<string, string>;
  config: Config;
  /** Whether the calling key holds a scope beyond the operation's own (an answer may show less without it). */
  keyHas?(scope: Scope): boolean;
};

/**
 * What an operation answers. `body` is JSON-serialisable, or a Readable of bytes for an answer too
 * large to hold in memory, or a Buffer/string sent as is (then `contentType` names its media type;
 * the `output` schema still describes the whole document). Use `readBody` where the whole value is
 * needed (MCP).
 */
export type OperationResult = {
  status: number;
  body: unknown;
  /** Extra response headers (a download's `Content-Disposition`, ...). */
  headers?: Record<string, string>;
  contentType?: string;
};

/**
 * An operation's body as one JSON value, for transports that need the whole value (MCP): a streamed
 * body (a Readable of JSON bytes) or bytes sent as they are are read whole and parsed; text that is
 * not JSON stays a string.
 */
export async function readBody(body: unknown): Promise<unknown> {
  let bytes: Buffer;
  if (body instanceof Readable) {
    const parts: Buffer[] = [];
    for await (const chunk of body) parts.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    bytes = Buffer.concat(parts);
  } else if (Buffer.isBuffer(body)) bytes = body;
  else return body;
  const text = bytes.toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * One verb as every transport sees it (docs/architecture.md "The company API"): the REST routes,
 * the MCP tools, the OpenAPI paths and the generated security tests all come from one list.
 */
export type Operation<P extends string = string> = {
  name: string;
  summary: string;
  scope: Scope;
  /**
   * The lowest plan whose keys may call it. Default `API_PLAN` (src/kernel/access.ts: API access
   * needs the Enterprise plan, docs/access.md "API keys"); next-task and next-deadline are available
   * from the Reporting plan upward (docs/compliance.md "Endpoints").
   */
  minPlan?: Plan;
  /**
   * The member's access level (src/kernel/access.ts) the dashboard action of this operation needs,
   * when it differs from its scope's (`SCOPE_ACCESS`): reading a settings page is `read-admin`.
   */
  access?: Access;
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path below `{base_url}`, Fastify syntax (`/vulnerabilities/:id`); its parameters type `env.params`. */
  path: P;
  mcpTool?: string;
  /** The MCP tool's description when the summary is not enough for an agent (the scope is appended). */
  mcpDescription?: string;
  /** Overrides of the MCP tool annotations derived from the method (src/mcp/tool-annotations.ts). */
  mcpAnnotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
  /**
   * The result carries text written by the public (report fields, or a filing pack quoting them):
   * the MCP tool marks it as untrusted so agents do not follow instructions inside it.
   */
  untrustedOutput?: boolean;
  /** Success statuses, first the usual one (OpenAPI); default [200]. */
  statuses?: number[];
  /**
   * The refusals of this operation's own verb, by status, each with when it happens (the OpenAPI
   * response description): a record named in the query or body that the company does not have
   * (404; an unknown path id is implied), a conflict with a record's state (409), a document that
   * cannot be made valid (422). The refusals every operation shares, and those its path and method
   * imply, are derived (src/http/operation-errors.ts); the generated answer walk fails on any status
   * the document does not declare.
   */
  errors?: Partial<Record<OperationErrorStatus, string>>;
  /**
   * Body schema (OpenAPI, MCP input); the verb parses with it again. Every operation whose handler
   * takes the body declares one (or `rawBody`): test/http/operation-descriptors.test.ts.
   */
  input?: z.ZodType;
  /** The body may be left out (the handler then gets `{}`; an explicit `null` is still refused: operation-input.ts): OpenAPI `requestBody.required` is false. */
  optionalBody?: boolean;
  /** MCP argument that carries a non-object body (default `body`). */
  mcpBodyName?: string;
  /**
   * The body is a document the verb parses itself (an SBOM, a SARIF log): it arrives as the raw
   * bytes (a Buffer, parsed once by the verb, not here), only with one of these media types
   * (others: 415), and may be up to `maxBytes(config)` long (beyond: 413).
   */
  rawBody?: { mediaTypes: readonly string[]; maxBytes(config: Config): number };
  /**
   * A JSON body larger than the 1 MiB every other operation takes (files sent as base64 with a case
   * message): its own limit in bytes (beyond: 413).
   */
  jsonBodyLimit?: number;
  /** Media types of the success body when it is not `application/json` (OpenAPI). */
  produces?: readonly string[];
  /** Query-string schema (OpenAPI parameters, MCP input); the verb parses with it again. */
  query?: z.ZodObject;
  /**
   * Schema of the success body (OpenAPI responses, MCP structured output, the generated response
   * walk). Every operation that answers with a body declares one.
   */
  output?: z.ZodType;
  /** A valid request, for the generated tests: path params, query and body. */
  example: { params?: PathParams<P>; query?: Record<string, string>; body?: unknown };
  handler(env: OperationEnv<P>, body: unknown): Promise<OperationResult>;
};

/**
 * The one way to write an operation: an object literal whose `path` types its handler's
 * `env.params` (`'/webhooks/:id'` gives `params.id: string`), added to a module's list.
 */
export const defineOperation = <const P extends string>(op: Operation<P>): Operation => op;

/**
 * What an operation needs, for `authorize` (src/kernel/access.ts): the one answer REST, MCP and the
 * dashboard give (a key is held to the scope, a member to the access level, both to the plan).
 */
export const operationNeed = (op: Pick<Operation, 'minPlan' | 'scope' | 'access'>): Need => ({
  minPlan: op.minPlan,
  scope: op.scope,
  access: op.access ?? SCOPE_ACCESS[op.scope],
});
