import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, unknown>;
export type OpenApiDoc = {
  paths: Record<string, Record<string, { operationId: string; parameters?: { name: string; in: string; schema: Json }[]; requestBody?: { content: Record<string, { schema: Json }> }; responses: Record<string, { content?: Record<string, { schema: Json }> }> }>>;
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
