import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, portalHost, SITE, type TestApp } from '../helpers/app.js';
import { freshAddress } from '../helpers/intake.js';
import { OPERATION_FIXTURES } from '../helpers/operation-fixtures.js';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { API_BASE } from '../../src/http/api-routes.js';
import { INTAKE_BODY_LIMITS } from '../../src/http/intake-limits.js';
import { type OpenApiDoc, responseValidators } from '../helpers/openapi-schemas.js';
import { arbitraryOf, deeplyNested, hostileValue } from '../helpers/schema-arbitrary.js';

/**
 * Issue 11 "Fuzzing from /openapi.json": every documented operation gets generated requests, valid
 * ones from its request schema and mutations of them (hostile field values, wrong body types,
 * prototype-pollution keys, malformed JSON, deep nesting, wrong content types, duplicated headers,
 * hostile query and path values). Whatever comes in: no 5xx, every error is problem+json with its
 * own status, every JSON success matches the documented response schema, and nothing pollutes
 * Object.prototype. The seed is fixed so CI is repeatable; FUZZ_RUNS and FUZZ_SEED widen a run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

type Json = Record<string, unknown>;
type OpDoc = OpenApiDoc['paths'][string][string];

let t: TestApp;
let acme: Tenant;
let key = '';
let doc: OpenApiDoc;
let validatorOf: ReturnType<typeof responseValidators>;

before(async () => {
  // The per-key limit is 100 per minute (docs/access.md "Rate limit"); the fuzzer sends more than that on purpose.
  t = await createTestApp({ API_RATE_LIMIT: '10000000' });
  acme = await makeTenant(t.database.db);
  key = (await makeKey(t.database.db, acme)).key;
  doc = (await t.app.inject({ url: '/openapi.json', headers: { host: SITE } })).json();
  validatorOf = responseValidators(doc);
});
after(() => t.close());

type Mutation =
  | { kind: 'valid'; body: unknown }
  | { kind: 'field'; body: unknown; field: string; value: unknown }
  | { kind: 'body'; value: unknown }
  | { kind: 'raw'; payload: string; contentType: string }
  | { kind: 'query'; name: string; value: string }
  | { kind: 'path'; value: string }
  | { kind: 'headers'; body: unknown };

function mutations(op: OpDoc): fc.Arbitrary<Mutation> {
  const bodySchema = op.requestBody?.content['application/json']?.schema;
  const valid = bodySchema ? arbitraryOf(bodySchema, doc.components.schemas) : fc.constant(undefined);
  const fieldNames = bodySchema
    ? Object.keys(((bodySchema.$ref ? doc.components.schemas[String(bodySchema.$ref).split('/').pop() ?? ''] : bodySchema)?.properties ?? {}) as Json)
    : [];
  const queries = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const hasPath = (op.parameters ?? []).some((p) => p.in === 'path');
  const options: fc.Arbitrary<Mutation>[] = [
    valid.map((body) => ({ kind: 'valid' as const, body })),
    hostileValue.map((value) => ({ kind: 'body' as const, value })),
    fc.constantFrom(
      { kind: 'raw' as const, payload: '{"description": "unterminated', contentType: 'application/json' },
      { kind: 'raw' as const, payload: deeplyNested(20_000), contentType: 'application/json' },
      { kind: 'raw' as const, payload: 'description=x&vulnerabilityType=other', contentType: 'application/x-www-form-urlencoded' },
      { kind: 'raw' as const, payload: '<report/>', contentType: 'application/xml' },
      { kind: 'raw' as const, payload: '{}', contentType: 'text/plain' },
      { kind: 'raw' as const, payload: '', contentType: 'application/json' },
      { kind: 'raw' as const, payload: '{"a":1}', contentType: 'application/json; charset=utf-16' },
    ),
    valid.map((body) => ({ kind: 'headers' as const, body })),
  ];
  if (fieldNames.length)
    options.push(fc.tuple(valid, fc.constantFrom(...fieldNames), hostileValue).map(([body, field, value]) => ({ kind: 'field' as const, body, field, value })));
  if (queries.length)
    options.push(
      fc
        .tuple(
          fc.constantFrom(...queries),
          fc.oneof(fc.string({ unit: 'binary', maxLength: 50 }), fc.constantFrom('-1', '0', '1e309', 'NaN', '%00', 'a'.repeat(5000), 'new,unknown')),
        )
        .map(([name, value]) => ({ kind: 'query' as const, name, value })),
    );
  if (hasPath)
    options.push(
      fc
        .oneof(
          fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
          fc.constantFrom('..', '%2e%2e', 'a'.repeat(3000), '00000000-0000-0000-0000-000000000000'),
        )
        .map((value) => ({ kind: 'path' as const, value })),
    );
  return fc.oneof(...options);
}

function toRequest(method: string, path: string, params: Record<string, string>, m: Mutation, bulk: boolean): InjectOptions {
  let url = path;
  for (const [k, v] of Object.entries(params)) url = url.replace(`{${k}}`, encodeURIComponent(m.kind === 'path' ? m.value : v));
  url = url.replace(/\{[A-Za-z]+\}/g, encodeURIComponent(m.kind === 'path' ? m.value : '00000000-0000-4000-8000-000000000000'));
  if (m.kind === 'query') url += `?${new URLSearchParams({ [m.name]: m.value }).toString()}`;
  const headers: Record<string, string | string[]> = { host: SITE, ...(bulk ? {} : { authorization: `Bearer ${key}` }) };
  // A fresh client address each time, so the bulk endpoint's per-address limit does not end the run early.
  const remoteAddress = freshAddress();
  const json = (body: unknown) => (body === undefined ? {} : { payload: JSON.stringify(body), headers: { ...headers, 'content-type': 'application/json' } });
  const withBody = method !== 'GET' && method !== 'DELETE';
  switch (m.kind) {
    case 'raw':
      return { method: method as 'POST', url, remoteAddress, payload: m.payload, headers: { ...headers, 'content-type': m.contentType } };
    case 'body':
      return { method: method as 'POST', url, remoteAddress, ...json(m.value) };
    case 'field': {
      const body =
        typeof m.body === 'object' && m.body !== null && !Array.isArray(m.body) ? { ...(m.body as Json), [m.field]: m.value } : { [m.field]: m.value };
      return { method: method as 'POST', url, remoteAddress, ...json(body) };
    }
    case 'headers':
      // A duplicated Authorization (or, on the public endpoint, Content-Type) header.
      return {
        method: method as 'POST',
        url,
        remoteAddress,
        ...(withBody ? { payload: JSON.stringify(m.body ?? {}) } : {}),
        headers: {
          ...headers,
          ...(bulk
            ? { 'content-type': ['application/json', 'text/plain'] }
            : { authorization: [`Bearer ${key}`, `Bearer ${'0'.repeat(64)}`], ...(withBody ? { 'content-type': 'application/json' } : {}) }),
        } as unknown as InjectOptions['headers'], // the header arrays are what this case sends; Node 22's header types allow them for few names
      };
    default:
      return { method: method as 'POST', url, remoteAddress, ...(withBody ? json(m.kind === 'valid' ? m.body : undefined) : { headers }) };
  }
}

const fixtureName = (operationId: string) => API_OPERATIONS.find((o) => o.name === operationId)?.name ?? operationId;

describe('fuzzing every documented operation (fixed seed)', () => {
  it('covers the whole document', () => {
    const documented = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    assert.equal(documented.length, API_OPERATIONS.length + 1, 'every operation plus the bulk endpoint');
  });

  // The document is fetched in `before`, so the per-operation cases are built inside one test each.
  for (const op of [
    ...API_OPERATIONS.map((o) => ({ id: o.name, method: o.method, path: `${API_BASE}${o.path.replace(/:([A-Za-z]+)/g, '{$1}')}` })),
    { id: 'portal.batch', method: 'POST', path: '/api/portal/batch' },
  ]) {
    it(`${op.method} ${op.path}: no 5xx, problem+json errors, documented successes`, async () => {
      const opDoc = doc.paths[op.path]?.[op.method.toLowerCase()];
      assert.ok(opDoc, `${op.id} is not in /openapi.json`);
      const fixture = OPERATION_FIXTURES[fixtureName(op.id)];
      const params = fixture ? await fixture(t.database.db, acme.company) : {};
      const bulk = op.id === 'portal.batch';
      await fc.assert(
        fc.asyncProperty(mutations(opDoc), async (m) => {
          const res = await t.app.inject(toRequest(op.method, op.path, params, m, bulk));
          const where = `${op.method} ${op.path} ${JSON.stringify(m).slice(0, 300)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
          assert.ok(res.statusCode < 500, where);
          const type = String(res.headers['content-type'] ?? '');
          if (res.statusCode >= 400) {
            assert.match(type, /^application\/problem\+json/, where);
            const p = res.json() as { status: number; title: string };
            assert.equal(p.status, res.statusCode, where);
            assert.equal(typeof p.title, 'string', where);
          } else if (/^application\/json/.test(type)) {
            assert.ok(opDoc.responses[String(res.statusCode)], `${where}: status ${res.statusCode} is not documented`);
            const validate = validatorOf(op.path, op.method, res.statusCode, 'application/json');
            assert.ok(validate, `${where}: no documented response schema`);
            assert.ok(validate(res.json()), `${where}: ${JSON.stringify(validate.errors)}`);
          }
          assert.equal(({} as Json).polluted, undefined, `${where}: Object.prototype was polluted`);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
    });
  }
});

describe('fuzzing the portal report form (fixed seed)', () => {
  const FIELDS = ['description', 'productName', 'vulnerabilityType', 'stepsToReproduce', 'impact', 'contactEmail', 'pgpKey'];
  it('answers every hostile form with the confirmation or the re-rendered form, never a 5xx', async () => {
    const formValue = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      hostileValue.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...FIELDS, '__proto__', 'constructor', 'website'), fc.oneof(formValue, fc.array(formValue, { maxLength: 3 }))),
        async (fields) => {
          const body = new URLSearchParams();
          for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
          const res = await t.app.inject({
            method: 'POST',
            url: '/submit',
            remoteAddress: freshAddress(),
            headers: { host: portalHost(acme.company.slug), 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
            payload: body.toString(),
          });
          const where = `${body.toString().slice(0, 300)} -> ${res.statusCode}`;
          // A body over the form's limit is refused unread, with a page naming the limit.
          const tooLarge = Buffer.byteLength(body.toString()) > INTAKE_BODY_LIMITS.reportForm;
          assert.ok(tooLarge ? res.statusCode === 413 && /at most 640\.0 KiB/.test(res.body) : [200, 303, 400].includes(res.statusCode), where);
          if (res.statusCode === 400) assert.match(res.body, /<form[^>]+action="\/submit"/, where);
          assert.ok(!res.body.includes('<script>'), `${where}: unescaped markup`);
          assert.equal(({} as Json).polluted, undefined, `${where}: Object.prototype was polluted`);
        },
      ),
      { numRuns: RUNS * 4, seed: SEED, endOnFailure: true },
    );
  });
});
