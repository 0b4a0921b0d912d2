import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;
export type OpenApiDoc = {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        parameters?: { name: string; in: string; schema: Json }[];
        requestBody?: { content: Record<string, { schema: Json }> };
        responses: Record<string, { content?: Record<string, { schema: Json }> }>;
      }
    >
  >;
  components: { schemas: Record<string, Json> };
};

/**
 * Validators of the response schemas `/openapi.json` publishes (not of the Zod schemas themselves, so
 * the published document is what is checked): a schema is made standalone by carrying the document's
 * components as `$defs`, compiled once per path, method, status and media type.
 */
export function responseValidators(doc: OpenApiDoc): (path: string, method: string, status: number, mediaType: string) => ValidateFunction | undefined {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const rewrite = (o: unknown) => JSON.parse(JSON.stringify(o).replaceAll('"#/components/schemas/', '"#/$defs/')) as Json;
  const defs = rewrite(doc.components.schemas);
  const compiled = new Map<string, ValidateFunction | undefined>();
  return (path, method, status, mediaType) => {
    const key = `${method} ${path} ${status} ${mediaType}`;
    if (!compiled.has(key)) {
      const schema = doc.paths[path]?.[method.toLowerCase()]?.responses[String(status)]?.content?.[mediaType]?.schema;
      compiled.set(key, schema && Object.keys(schema).length > 0 ? ajv.compile({ ...rewrite(schema), $defs: defs }) : undefined);
    }
    return compiled.get(key);
  };
}

/** What `checkAnswer` needs of an injected answer. */
export type Answer = { statusCode: number; headers: Record<string, unknown>; body: string; json(): unknown };

/**
 * Checks one answer of `method path` against the document: its status is declared, it is not a 5xx,
 * its media type is one the status declares, and its body is valid against that media type's
 * schema (a 204 has none). Returns the parsed body (undefined for a 204).
 */
export function checkAnswer(
  doc: OpenApiDoc,
  validatorOf: ReturnType<typeof responseValidators>,
  path: string,
  method: string,
  res: Answer,
  where: string,
): unknown {
  const declared = doc.paths[path]?.[method.toLowerCase()]?.responses[String(res.statusCode)];
  if (!declared) throw new Error(`${where}: status ${res.statusCode} is not declared in /openapi.json: ${res.body.slice(0, 300)}`);
  if (res.statusCode >= 500) throw new Error(`${where}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  if (res.statusCode === 204) {
    if (res.body !== '') throw new Error(`${where}: a 204 with a body`);
    return undefined;
  }
  const mediaType = String(res.headers['content-type']).split(';')[0]?.trim() ?? '';
  if (!declared.content?.[mediaType])
    throw new Error(`${where}: ${res.statusCode} answered ${mediaType}; declared: ${Object.keys(declared.content ?? {}).join(', ')}`);
  const validate = validatorOf(path, method, res.statusCode, mediaType);
  if (!validate) throw new Error(`${where}: no schema declared for ${res.statusCode} ${mediaType}`);
  // A file's bytes as they were sent (a case attachment's download) are no JSON document: the media
  // type is checked above, against the ones the operation declares it produces.
  if (!/[/+]json$/.test(mediaType)) return res.body;
  const body = res.json();
  if (!validate(body)) throw new Error(`${where}: ${res.statusCode} body breaks its schema: ${JSON.stringify(validate.errors)}\n${res.body.slice(0, 500)}`);
  return body;
}
