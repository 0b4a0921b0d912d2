import fc from 'fast-check';

type Schema = Record<string, unknown>;

/**
 * A fast-check arbitrary of values that satisfy (most of) a JSON Schema 2020-12 as our OpenAPI
 * document writes it: `$ref` into `components.schemas`, objects with required keys, arrays, enums,
 * consts, string lengths and formats, numeric bounds, unions. Patterns and cross-field rules are not
 * modelled, so some generated values are still refused: the fuzzer only needs them close to valid,
 * where the interesting refusals are.
 */
export function arbitraryOf(schema: Schema, components: Record<string, Schema>, depth = 0): fc.Arbitrary<unknown> {
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const target = components[ref.replace('#/components/schemas/', '')];
    return target && depth < 6 ? arbitraryOf(target, components, depth + 1) : fc.constant({});
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union?.length) return fc.oneof(...union.map((s) => arbitraryOf(s, components, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length) return arbitraryOf(schema.allOf[0] as Schema, components, depth + 1);
  const type = schema.type;
  if (Array.isArray(type)) return fc.oneof(...type.map((t) => arbitraryOf({ ...schema, type: t }, components, depth)));
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      if (depth > 5) return fc.constant({});
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, s]) => [k, arbitraryOf(s, components, depth + 1)])), {
        requiredKeys: required.filter((k) => k in props),
      });
    }
    case 'array': {
      const items = (schema.items ?? {}) as Schema;
      const min = Number(schema.minItems ?? 0);
      const max = Math.max(min, Math.min(Number(schema.maxItems ?? 3), 3));
      return depth > 5 ? fc.constant([]) : fc.array(arbitraryOf(items, components, depth + 1), { minLength: min, maxLength: max });
    }
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({ min: Number(schema.minimum ?? -1_000_000), max: Number(schema.maximum ?? 1_000_000) });
    case 'number':
      return fc.double({ min: Number(schema.minimum ?? -1e6), max: Number(schema.maximum ?? 1e6), noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'date-time':
      return fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.webUrl();
    case 'uuid':
      return fc.uuid();
    default: {
      const min = Number(schema.minLength ?? 0);
      const max = Math.max(min, Math.min(Number(schema.maxLength ?? 60), 60));
      return fc.string({ minLength: min, maxLength: max, unit: 'grapheme' });
    }
  }
}

/** Hostile values for any field: wrong types, NUL and odd unicode, prototype keys, long and deep. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1e308, '', [], {}, '\u0000', 'a\u0000b', '\ud800', '\u202e\u0000<script>', '%00', '../../etc/passwd', '{"$ne":null}'),
  fc.constant({ ['__proto__']: { polluted: true } }),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}')),
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.integer({ min: 1, max: 200_000 }).map((n) => 'x'.repeat(n)),
  fc.jsonValue({ maxDepth: 4 }),
);

/** An array nested `n` deep: a parser or validator that recurses must not fall over. */
export const deeplyNested = (n: number): string => '['.repeat(n) + ']'.repeat(n);
