import { z } from 'zod';
import { validation } from '../kernel/errors.js';
import type { Operation } from '../modules/operations/operation.js';
import { hasObjectBody } from '../modules/operations/operation-input.js';

export type Json = Record<string, unknown>;

/** The default MCP argument that carries a non-object body (Operation.mcpBodyName). */
export const DEFAULT_BODY_NAME = 'body';
/** The property that holds a non-object result in structured content (see wrapStructured). */
export const WRAPPED_RESULT = 'result';

export const pathParams = (path: string): string[] => [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string);
const bodyName = (op: Operation): string => op.mcpBodyName ?? DEFAULT_BODY_NAME;

/**
 * JSON Schema of a Zod schema as tools/list carries it: no `$schema` (2025-era clients compile it
 * with a draft-07 Ajv), and a root `$ref` (a schema named with `.meta({ id })`) resolved in place so
 * the root is the object itself; the other named schemas stay in `$defs`.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): { root: Json; defs: Json } {
  const { $schema: _s, $defs, ...root } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  const defs = { ...(($defs ?? {}) as Json) };
  const ref = typeof root.$ref === 'string' ? /^#\/\$defs\/(.+)$/.exec(root.$ref)?.[1] : undefined;
  if (ref && defs[ref]) {
    const { $ref: _r, ...rest } = root;
    return { root: { ...(defs[ref] as Json), ...rest }, defs };
  }
  return { root, defs };
}

const withDefs = (root: Json, defs: Json): Json => (Object.keys(defs).length ? { ...root, $defs: defs } : root);

/**
 * The tool's input: path parameters (strings), the query schema's properties, then the body (an
 * object body's properties spread in; any other body under `mcpBodyName`). One schema set: these
 * are the REST operation's own Zod schemas, converted.
 */
export function toolInputSchema(op: Operation): Json {
  const properties: Json = {};
  const required: string[] = [];
  let defs: Json = {};
  for (const p of pathParams(op.path)) {
    properties[p] = { type: 'string', description: `The \`${p}\` of \`${op.method} /api/v1${op.path}\`: an id from another tool's result.` };
    required.push(p);
  }
  const spread = (schema: z.ZodType) => {
    const js = jsonSchemaOf(schema, 'input');
    Object.assign(properties, (js.root.properties ?? {}) as Json);
    required.push(...((js.root.required ?? []) as string[]));
    defs = { ...defs, ...js.defs };
  };
  if (op.query) spread(op.query);
  if (op.input && hasObjectBody(op)) spread(op.input);
  else if (op.input) {
    const js = jsonSchemaOf(op.input, 'input');
    properties[bodyName(op)] = js.root;
    defs = { ...defs, ...js.defs };
    required.push(bodyName(op));
  }
  return withDefs({ type: 'object', properties, ...(required.length ? { required: [...new Set(required)] } : {}) }, defs);
}

/**
 * The tool's output schema: the operation's `output` schema, with a non-object root (a list)
 * wrapped as `{ "result": ... }`, because 2025-era clients accept only object structured content;
 * both protocol eras see the same shape. Undefined when the operation declares no output.
 */
export function toolOutputSchema(op: Operation): Json | undefined {
  if (!op.output) return undefined;
  const { root, defs } = jsonSchemaOf(op.output, 'output');
  if (root.type === 'object') return withDefs(root, defs);
  return withDefs({ type: 'object', properties: { [WRAPPED_RESULT]: root }, required: [WRAPPED_RESULT] }, defs);
}

/** A REST body as structured content: the same JSON, an object as is, anything else wrapped. */
export function wrapStructured(body: unknown): Json | undefined {
  if (body === undefined) return undefined;
  const json = JSON.parse(JSON.stringify(body)) as unknown;
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? (json as Json) : { [WRAPPED_RESULT]: json };
}

export type OperationArgs = { params: Record<string, string>; query: Record<string, string>; body: unknown };

const queryValue = (v: unknown): string => (Array.isArray(v) ? v.map(String).join(',') : String(v));

/**
 * Splits tool arguments back into what the REST route would have handed the operation. Values are
 * not validated here: the operation parses them with its own schemas, so REST and MCP refuse the
 * same input with the same messages.
 */
export function splitArguments(op: Operation, args: Json): OperationArgs {
  const names = pathParams(op.path);
  const queryKeys = new Set(Object.keys(op.query?.shape ?? {}));
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  const rest: Json = {};
  for (const [k, v] of Object.entries(args)) {
    if (names.includes(k)) params[k] = String(v);
    else if (queryKeys.has(k)) {
      if (v !== undefined && v !== null) query[k] = queryValue(v);
    } else rest[k] = v;
  }
  const missing = names.filter((n) => params[n] === undefined || params[n] === '');
  if (missing.length)
    throw validation(
      `missing argument ${missing.join(', ')}`,
      missing.map((path) => ({ path, message: 'required' })),
    );
  if (hasObjectBody(op)) return { params, query, body: rest };
  const body = op.input ? rest[bodyName(op)] : undefined;
  if (op.input) delete rest[bodyName(op)];
  const unknown = Object.keys(rest);
  if (unknown.length)
    throw validation(
      `unknown argument ${unknown.join(', ')}`,
      unknown.map((path) => ({ path, message: 'not an argument of this tool' })),
    );
  return { params, query, body };
}
