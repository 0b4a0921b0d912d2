import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { z } from 'zod';
import { API_BASE } from '../../src/http/api-routes.js';
import { readsBody } from '../../src/http/operation-errors.js';
import type { Operation } from '../../src/http/operations.js';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { OPERATION_FIXTURES } from '../helpers/operation-fixtures.js';
import { checkAnswer, type OpenApiDoc, responseValidators } from '../helpers/openapi-schemas.js';
import { operationRequest, unknownReferences } from '../helpers/operation-request.js';

/**
 * Generated from the operation list: every `{base_url}` operation performs its example request and
 * its answer is validated against the response schema `/openapi.json` documents for that status
 * (not against the Zod schema itself, so the published document is what is checked). An operation
 * added to API_OPERATIONS is covered without touching this file.
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

const pathOf = (op: Operation) => `${API_BASE}${op.path.replace(/:([A-Za-z]+)/g, '{$1}')}`;

/** The record fixtures an operation's example needs (path parameters, `body.<field>` overlays). */
const fixtureOf = async (op: Operation) => (OPERATION_FIXTURES[op.name] ? await OPERATION_FIXTURES[op.name]!(t.database.db, acme.company) : {});
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

    if (!readsBody(op)) return;

    it('refuses a body of another media type than it reads with 415 problem+json', async () => {
      const params = await fixtureOf(op);
      const base = operationRequest(op, { authorization: await keyFor(op) }, {}, {}, params);
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const res = await t.app.inject({ ...base, headers: { ...base.headers, 'content-type': type }, payload: type === 'text/plain' ? JSON.stringify(op.example.body ?? {}) : 'a=b' });
        const body = check(res, type) as { status: number; detail: string };
        assert.equal(res.statusCode, 415, `${op.name} with ${type}: ${res.body.slice(0, 300)}`);
        assert.equal(body.status, 415);
        assert.ok(body.detail.startsWith(`${type} is not accepted here`), body.detail);
      }
    });

    it('refuses a malformed JSON body with 400 problem+json', async () => {
      const params = await fixtureOf(op);
      const res = await t.app.inject(operationRequest(op, { authorization: await keyFor(op), 'content-type': 'application/json' }, { payload: '{"description": "unterminated' }, {}, params));
      const body = check(res, 'malformed JSON') as { detail: string };
      assert.equal(res.statusCode, 400, `${op.name}: ${res.body.slice(0, 300)}`);
      assert.match(body.detail, /not valid JSON/);
    });

    if (!(op.input instanceof z.ZodObject) || op.rawBody) return;

    it('refuses a JSON body that is not an object with 400 naming the type', async () => {
      const params = await fixtureOf(op);
      const res = await t.app.inject(operationRequest(op, { authorization: await keyFor(op), 'content-type': 'application/json' }, { payload: '[1]' }, {}, params));
      const body = check(res, 'array body') as { detail: string };
      assert.equal(res.statusCode, 400, `${op.name}: ${res.body.slice(0, 300)}`);
      assert.match(body.detail, /expected object, received array/);
    });
  });
}

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
