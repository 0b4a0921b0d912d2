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

/** Canonical JSON: object keys sorted, so equal values (in the JSON Schema sense) give equal text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/**
 * A cheap bucket for an item: equal items (in the JSON Schema sense) always share it. Strings
 * and other primitives are their own JSON text; an object is its primitive-valued properties
 * only, in sorted key order (nested arrays and objects are left to the full comparison).
 */
function shallowKey(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.length}`;
  const o = v as Record<string, unknown>;
  const parts: string[] = [];
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (x === null || typeof x !== 'object') parts.push(`${k}\u0000${JSON.stringify(x)}`);
  }
  return `{${parts.sort().join('\u0001')}`;
}

/**
 * ajv checks `uniqueItems` by comparing every pair of items: quadratic, 33 s for the 10,000
 * components of one CycloneDX SBOM (measured). This keyword gives the same verdict in linear
 * time: items are bucketed by a cheap shallow key (for SBOM components, their `bom-ref`, name and
 * version make it unique), and only items sharing a bucket are compared by canonical JSON. The
 * canonical serialisation of every component was half the validation time before (measured).
 */
export const uniqueItemsFast = {
  keyword: 'uniqueItemsFast',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  validate: function check(this: unknown, enabled: boolean, data: unknown[]): boolean {
    if (!enabled || data.length < 2) return true;
    const buckets = new Map<string, number[]>();
    let collided = false;
    for (let i = 0; i < data.length; i++) {
      const key = shallowKey(data[i]);
      const b = buckets.get(key);
      if (b) {
        b.push(i);
        collided = true;
      } else buckets.set(key, [i]);
    }
    if (!collided) return true;
    for (const b of buckets.values()) {
      if (b.length < 2) continue;
      const seen = new Map<string, number>();
      for (const i of b) {
        const key = canonical(data[i]);
        const j = seen.get(key);
        if (j !== undefined) {
          (check as unknown as { errors: unknown[] }).errors = [
            { keyword: 'uniqueItems', message: `must NOT have duplicate items (items ${j} and ${i} are identical)`, params: { i: j, j: i } },
          ];
          return false;
        }
        seen.set(key, i);
      }
    }
    return true;
  },
} as const;

/** Rewrites `uniqueItems: true` to the linear `uniqueItemsFast` keyword, in place. */
export function useFastUniqueItems<T>(schema: T): T {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (o.uniqueItems === true && (typeof o.type === 'string' || 'items' in o)) {
        delete o.uniqueItems;
        o.uniqueItemsFast = true;
      }
      for (const v of Object.values(o)) walk(v);
    }
  };
  walk(schema);
  return schema;
}

/**
 * ajv checks an `enum` by deep-comparing the value with each allowed one in turn: every licence
 * id of an SBOM against the 700-entry SPDX list. Long all-string enums become a set lookup with
 * the same verdict (about a fifth off validating a 10,000-component SBOM, measured).
 */
export const enumSet = {
  keyword: 'enumSet',
  schemaType: 'array',
  errors: true,
  compile(values: string[]) {
    const allowed = new Set(values);
    const check = (data: unknown): boolean => {
      if (typeof data === 'string' && allowed.has(data)) return true;
      (check as unknown as { errors: unknown[] }).errors = [{ keyword: 'enum', message: `must be one of the ${allowed.size} allowed values`, params: {} }];
      return false;
    };
    return check;
  },
} as const;

/** Rewrites `enum` lists of 64 or more strings to `enumSet`, in place. */
export function useSetEnums<T>(schema: T): T {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node !== null && typeof node === 'object') {
      const o = node as Record<string, unknown>;
      if (Array.isArray(o.enum) && o.enum.length >= 64 && o.enum.every((v) => typeof v === 'string')) {
        o.enumSet = o.enum;
        delete o.enum;
      }
      for (const [k, v] of Object.entries(o)) if (k !== 'enumSet') walk(v);
    }
  };
  walk(schema);
  return schema;
}
