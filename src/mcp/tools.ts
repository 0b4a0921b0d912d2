import type { CallToolResult, McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_OPERATIONS } from '../http/api-operations.js';
import { labelAudit, requireScope } from '../http/api-key-auth.js';
import { operationEnv } from '../http/operation-env.js';
import { type Operation, readBody } from '../modules/operations/operation.js';
import { operationInput } from '../modules/operations/operation-input.js';
import { PROBLEM, problemBody, toAppError } from '../http/problem.js';
import { ErrorCode } from '../kernel/errors.js';
import type { KeyRecord } from '../modules/keys/authenticate-key.js';
import { toolAnnotations, toolDescription, type ToolAnnotations } from './tool-annotations.js';
import { errorResult, successResult } from './tool-result.js';
import { type Json, splitArguments, toolInputSchema, toolOutputSchema } from './tool-schemas.js';

/** A document argument read off the event loop (mcp-routes.ts): `token` stands for `bytes` in the arguments. */
export type OffloadedDocument = { token: string; bytes: Buffer };

/** One MCP request's caller: the key the authentication step accepted, and the HTTP request. */
export type McpCall = { app: FastifyInstance; req: FastifyRequest; key: KeyRecord; document?: OffloadedDocument };

export type ToolDef = {
  name: string;
  op: Operation;
  /** What `registerTool` is handed, built once per process. */
  config: { title?: string; description: string; inputSchema: StandardSchemaWithJSON; outputSchema?: StandardSchemaWithJSON; annotations: ToolAnnotations };
};

/**
 * A JSON Schema for tools/list that accepts any value: the operation parses its arguments itself
 * with the same Zod schemas as the REST route, so both transports refuse bad input alike.
 */
const advertised = (schema: Json): StandardSchemaWithJSON => ({
  '~standard': { version: 1, vendor: 'cradle', validate: (value: unknown) => ({ value }), jsonSchema: { input: () => schema, output: () => schema } },
});

/** Every operation that has an MCP tool name, converted once (a server is built per request). */
export function toolDefinitions(ops: readonly Operation[] = API_OPERATIONS): ToolDef[] {
  return ops.flatMap((op) => {
    if (!op.mcpTool) return [];
    const output = toolOutputSchema(op);
    const annotations = toolAnnotations(op);
    const config = {
      title: annotations.title,
      description: toolDescription(op),
      inputSchema: advertised(toolInputSchema(op)),
      ...(output ? { outputSchema: advertised(output) } : {}),
      annotations,
    };
    return [{ name: op.mcpTool, op, config }];
  });
}

/**
 * Runs the tool's operation exactly as the REST route does (same handler, same environment), with
 * the scope checked here per tool. Every outcome labels the request's audit row with the tool; a
 * refusal or failure is a tool error carrying the REST API's problem document, never a thrown error.
 */
async function callTool(call: McpCall, def: ToolDef, args: Json | undefined): Promise<CallToolResult> {
  const { app, req, key } = call;
  const { op, name } = def;
  try {
    requireScope(req, op.scope);
    const { params, query, body } = splitArguments(op, args ?? {});
    const input = operationInput(op, query, body);
    const document = call.document && body === call.document.token ? call.document.bytes : input;
    const result = await op.handler(operationEnv(app, req, key, params, query, 'mcp'), document);
    labelAudit(req, 'mcp.tool_call', { tool: name, operation: op.name }, 'success');
    return successResult(await readBody(result.body), op.untrustedOutput === true) as CallToolResult;
  } catch (err) {
    const appErr = toAppError(err);
    const status = PROBLEM[appErr.code].status;
    if (status >= 500) req.log.error({ err, tool: name }, 'MCP tool failed');
    labelAudit(
      req,
      'mcp.tool_call',
      { tool: name, operation: op.name, error: appErr.code, errorStatus: status },
      appErr.code === ErrorCode.FORBIDDEN ? 'denied' : 'failure',
    );
    return errorResult(problemBody(appErr, req, app.deps.config.publicUrl.origin)) as CallToolResult;
  }
}

export function registerTools(server: McpServer, defs: readonly ToolDef[], call: McpCall): void {
  for (const def of defs) {
    server.registerTool(def.name, def.config, (args: unknown) => callTool(call, def, args as Json | undefined));
  }
}
