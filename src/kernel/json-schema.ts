import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import type { FieldIssue } from './errors.js';

/**
 * Reads a vendored JSON schema. Callers pass a URL built from `import.meta.url` that climbs to
 * `src/`: src/modules/x and dist/modules/x sit at the same depth, so the JSON files (which tsc
 * does not copy) are found from both, as the migrations folder is in db/client.ts.
 */
export function readSchema(url: URL): Record<string, unknown> {
  return JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
}

/**
 * The first `max` schema errors as field issues whose path is the JSON pointer (RFC 6901) of the
 * offending value in the submitted document ("" is the document itself).
 */
export function schemaIssues(errors: ErrorObject[] | null | undefined, max = 10): FieldIssue[] {
  const out: FieldIssue[] = [];
  const seen = new Set<string>();
  for (const e of errors ?? []) {
    const message = describe(e);
    const key = `${e.instancePath}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ path: e.instancePath, message });
    if (out.length >= max) break;
  }
  return out;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  // Name the property: "must NOT have additional properties" alone does not say which one.
  if (e.keyword === 'additionalProperties') return `unexpected property "${String(p.additionalProperty)}"`;
  if (e.keyword === 'required') return `missing required property "${String(p.missingProperty)}"`;
  if (e.keyword === 'enum' && Array.isArray(p.allowedValues) && p.allowedValues.length <= 12) {
    return `must be one of ${p.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return e.message ?? e.keyword;
}
