import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { z } from 'zod';
import { count, ne } from 'drizzle-orm';
import { auditLog } from '../../src/db/schema/index.js';
import { API_BASE } from '../../src/http/api-routes.js';
import { readsBody } from '../../src/http/operation-errors.js';
import { SCOPES } from '../../src/modules/keys/keys.schemas.js';
import type { Operation } from '../../src/modules/operations/operation.js';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { freshAddress } from '../helpers/intake.js';
import { OPERATION_FIXTURES } from '../helpers/operation-fixtures.js';
import { checkAnswer, type OpenApiDoc, responseValidators } from '../helpers/openapi-schemas.js';
import { operationRequest, unknownReferences } from '../helpers/operation-request.js';

/**
 * Issue 22 item 1, "the OpenAPI document tells the whole truth". Generated from the operation list:
 * every operation of /openapi.json (each `{base_url}` operation and the bulk endpoint) gets its
 * example request and invalid ones (unknown records, no key, a key without its scope, a body of the
 * wrong media type, malformed JSON, a body of the wrong shape), and every answer's status and body
 * are checked against the document (checkAnswer: the status is declared, not a 5xx, and the body is
 * valid against the schema published for that status and media type; not against the Zod schemas,
 * so the published document is what is checked). An operation added to API_OPERATIONS is covered
 * without touching this file.
 */
let t: TestApp;
let acme: Tenant;
let doc: OpenApiDoc;
let validatorOf: ReturnType<typeof responseValidators>;

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  doc = (await t.app.inject({ url: '/openapi.json', headers: { host: SITE } })).json();
  validatorOf = responseValidators(doc);
});
after(() => t.close());

/** Query fields whose schema is an enum (optional or defaulted), whose other values must be refused. */
const enumQueryFields = (op: Operation): string[] =>
  Object.entries(op.query?.shape ?? {}).flatMap(([k, v]) => {
    const js = z.toJSONSchema(v as z.ZodType, { io: 'input', unrepresentable: 'any' }) as { enum?: unknown[] };
    return Array.isArray(js.enum) ? [k] : [];
  });
// Audit rows other than key uses: a refused request must not have acted.
const auditCount = async () => (await t.database.db.select({ n: count() }).from(auditLog).where(ne(auditLog.action, 'api.request')))[0]?.n ?? 0;

const pathOf = (op: Operation) => `${API_BASE}${op.path.replace(/:([A-Za-z]+)/g, '{$1}')}`;

/**
 * The record fixtures an operation's example needs (path parameters, `body.<field>` overlays), made
 * once per operation: only the example request may use them up (a deletion, a publication), and
 * every other request of the walk is refused before the verb runs or names unknown records.
 */
const fixtures = new Map<string, Promise<Record<string, string>>>();
const fixtureOf = (op: Operation) => {
  if (!fixtures.has(op.name))
    fixtures.set(op.name, OPERATION_FIXTURES[op.name] ? OPERATION_FIXTURES[op.name]!(t.database.db, acme.company) : Promise.resolve({}));
  return fixtures.get(op.name) as Promise<Record<string, string>>;
};
const keyFor = async (op: Operation) => `Bearer ${(await makeKey(t.database.db, acme, { scopes: [op.scope] })).key}`;
const declares = (op: Operation, status: number) => doc.paths[pathOf(op)]?.[op.method.toLowerCase()]?.responses[String(status)] !== undefined;

for (const op of API_OPERATIONS) {
  describe(`${op.method} ${API_BASE}${op.path} (${op.name})`, () => {
    const check = (res: Parameters<typeof checkAnswer>[4], what: string) => checkAnswer(doc, validatorOf, pathOf(op), op.method, res, `${op.name} (${what})`);

    it('answers its example request with a body valid against its documented response schema', async () => {
      const params = await fixtureOf(op);
      const res = await t.app.inject(operationRequest(op, { authorization: await keyFor(op) }, {}, {}, params));
      assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${op.name}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      assert.ok((op.statuses ?? [200]).includes(res.statusCode), `${op.name} answered ${res.statusCode}, not one of its statuses`);
      if (res.statusCode !== 204) assert.ok(op.output, `${op.name} answers with a body but declares no \`output\` schema`);
      // JSON, or one of the media types the operation declares it produces (a stored document).
      const mediaType = String(res.headers['content-type']).split(';')[0]?.trim() ?? '';
      if (res.statusCode !== 204) assert.ok(mediaType === 'application/json' || op.produces?.includes(mediaType), `${op.name} answered ${mediaType}`);
      check(res, 'example');
    });

    it('answers a request naming unknown records with a documented status: 404 when it declares one', async () => {
      const { params, query, replaced } = unknownReferences(op, await fixtureOf(op));
      const res = await t.app.inject(operationRequest(op, { authorization: await keyFor(op) }, {}, query, params));
      const body = check(res, `unknown ${replaced.join(', ')}`) as { detail?: string } | undefined;
      if (!declares(op, 404)) return;
      assert.ok(replaced.length > 0, `${op.name} declares 404 but names no record the walk can replace (test/helpers/operation-request.ts UNKNOWN_REFERENCES)`);
      assert.equal(res.statusCode, 404, `${op.name} with unknown ${replaced.join(', ')}: ${res.body.slice(0, 300)}`);
      assert.match(String(body?.detail), /not found/);
    });

    it('refuses no key with 401 and a key without its scope with 403, as documented', async () => {
      const params = await fixtureOf(op);
      const none = await t.app.inject(operationRequest(op, {}, {}, {}, params));
      const p401 = check(none, 'no key') as { status: number; detail: string };
      assert.equal(none.statusCode, 401, none.body.slice(0, 300));
      assert.equal(none.headers['www-authenticate'], 'Bearer');
      assert.match(p401.detail, /send an API key in the Authorization header/);
      const other = SCOPES.find((s) => s !== op.scope) as string;
      const { key } = await makeKey(t.database.db, acme, { scopes: [other] });
      const res = await t.app.inject(operationRequest(op, { authorization: `Bearer ${key}` }, {}, {}, params));
      const p403 = check(res, `scope ${other}`) as { detail: string };
      assert.equal(res.statusCode, 403, res.body.slice(0, 300));
      assert.equal(res.headers['www-authenticate'], `Bearer error="insufficient_scope", scope="${op.scope}"`);
      assert.equal(p403.detail, `this API key lacks the scope "${op.scope}"`);
    });

    const enums = enumQueryFields(op);
    if (enums.length > 0)
      it('refuses a query value outside its enum with 400 naming the field', async () => {
        const params = await fixtureOf(op);
        for (const field of enums) {
          const query = { ...(op.example.query ?? {}), [field]: 'not-one-of-them' };
          const res = await t.app.inject(operationRequest(op, { authorization: await keyFor(op) }, {}, query, params));
          const body = check(res, `${field}=not-one-of-them`) as { detail: string; errors?: { path: string }[] };
          assert.equal(res.statusCode, 400, `${op.name} with ${field}=not-one-of-them: ${res.body.slice(0, 300)}`);
          assert.ok(body.detail.startsWith(`${field}: `), body.detail);
          assert.deepEqual(
            body.errors?.map((e) => e.path),
            [field],
          );
        }
      });

    if (!readsBody(op)) return;

    it('refuses a body of another media type than it reads with 415 problem+json', async () => {
      const params = await fixtureOf(op);
      const base = operationRequest(op, { authorization: await keyFor(op) }, {}, {}, params);
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const res = await t.app.inject({
          ...base,
          headers: { ...base.headers, 'content-type': type },
          payload: type === 'text/plain' ? JSON.stringify(op.example.body ?? {}) : 'a=b',
        });
        const body = check(res, type) as { status: number; detail: string };
        assert.equal(res.statusCode, 415, `${op.name} with ${type}: ${res.body.slice(0, 300)}`);
        assert.equal(body.status, 415);
        assert.ok(body.detail.startsWith(`${type} is not accepted here`), body.detail);
      }
    });

    it('refuses a malformed JSON body with 400 problem+json', async () => {
      const params = await fixtureOf(op);
      const res = await t.app.inject(
        operationRequest(op, { authorization: await keyFor(op), 'content-type': 'application/json' }, { payload: '{"description": "unterminated' }, {}, params),
      );
      const body = check(res, 'malformed JSON') as { detail: string };
      assert.equal(res.statusCode, 400, `${op.name}: ${res.body.slice(0, 300)}`);
      assert.match(body.detail, /not valid JSON/);
    });

    if (!(op.input instanceof z.ZodObject) || op.rawBody) return;

    it('refuses a JSON body that is not an object (null, an array, a scalar) with 400 naming the type, changing nothing', async () => {
      const params = await fixtureOf(op);
      // Issue 32 finding 6: `null` once read as "no body" and acted (a confirmation, a filing).
      for (const [payload, type] of [
        ['null', 'null'],
        ['[1]', 'array'],
        ['"text"', 'string'],
        ['42', 'number'],
      ] as const) {
        const authorization = await keyFor(op);
        const before = await auditCount();
        const res = await t.app.inject(operationRequest(op, { authorization, 'content-type': 'application/json' }, { payload }, {}, params));
        const body = check(res, `${type} body`) as { detail: string };
        assert.equal(res.statusCode, 400, `${op.name} with ${payload}: ${res.body.slice(0, 300)}`);
        assert.match(body.detail, new RegExp(`expected object, received ${type}`));
        assert.equal(await auditCount(), before, `${op.name} with ${payload} wrote an audit row: it acted`);
      }
    });
  });
}

describe('POST /api/portal/batch (portal.batch)', () => {
  const path = '/api/portal/batch';
  const post = (payload: string, type = 'application/json') =>
    t.app.inject({ method: 'POST', url: path, remoteAddress: freshAddress(), headers: { host: SITE, 'content-type': type }, payload });
  const check = (res: Parameters<typeof checkAnswer>[4], what: string) => checkAnswer(doc, validatorOf, path, 'POST', res, `portal.batch (${what})`);

  it('files a valid batch, and answers an unknown portal with ok: false, as documented', async () => {
    const res = await post(
      JSON.stringify({
        submissions: [
          { slug: acme.company.slug, description: 'Bulk-filed overflow' },
          { slug: 'no-such-portal', description: 'x' },
        ],
      }),
    );
    const body = check(res, 'example') as { results: { ok: boolean; error?: string }[]; summary: unknown };
    assert.equal(res.statusCode, 200);
    assert.deepEqual(body.summary, { total: 2, succeeded: 1, failed: 1 });
    assert.deepEqual(
      body.results.map((r) => r.ok),
      [true, false],
    );
    assert.match(String(body.results[1]?.error), /portal not found/);
  });

  it('refuses a wrong media type (415), malformed JSON and a malformed envelope (400), as documented', async () => {
    for (const [payload, type, status, detail] of [
      ['{"submissions":[]}', 'text/plain', 415, /application\/json/],
      ['{"submissions": [', 'application/json', 400, /not valid JSON/],
      ['{"submissions":[]}', 'application/json', 400, /submissions/],
    ] as const) {
      const res = await post(payload, type);
      const body = check(res, `${type} ${payload}`) as { detail: string };
      assert.equal(res.statusCode, status, res.body.slice(0, 300));
      assert.match(body.detail, detail);
    }
  });
});

describe('the walk', () => {
  it('covers every operation of /openapi.json', () => {
    const documented = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    assert.deepEqual(documented.sort(), [...API_OPERATIONS.map((o) => o.name), 'portal.batch'].sort());
  });
});

describe('the documented response schemas', () => {
  it('exist for every operation that can answer with a body', () => {
    const missing = API_OPERATIONS.filter((op) => (op.statuses ?? [200]).some((s) => s !== 204) && !op.output).map((op) => op.name);
    assert.deepEqual(missing, [], 'declare `output` (a Zod schema named with .meta({ id })) on these operations');
  });

  it('refuse a body that breaks them (so the walk above can fail)', () => {
    const op = API_OPERATIONS.find((o) => o.name === 'products.list');
    assert.ok(op);
    const validate = validatorOf(pathOf(op), op.method, 200, 'application/json');
    assert.ok(validate);
    assert.equal(validate([{ id: 'not-a-uuid', name: 'x' }]), false);
    assert.equal(validate([]), true);
  });
});
