import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { API_BASE } from '../../src/http/api-routes.js';
import type { Operation } from '../../src/http/operations.js';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { OPERATION_FIXTURES } from '../helpers/operation-fixtures.js';
import { type OpenApiDoc, responseValidators } from '../helpers/openapi-schemas.js';
import { operationRequest } from '../helpers/operation-request.js';

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

for (const op of API_OPERATIONS) {
  describe(`${op.method} ${API_BASE}${op.path} (${op.name})`, () => {
    it('answers its example request with a body valid against its documented response schema', async () => {
      const params = OPERATION_FIXTURES[op.name] ? await OPERATION_FIXTURES[op.name]!(t.database.db, acme.company) : {};
      const { key } = await makeKey(t.database.db, acme, { scopes: [op.scope] });
      const res = await t.app.inject(operationRequest(op, { authorization: `Bearer ${key}` }, {}, {}, params));
      assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${op.name}: ${res.statusCode} ${res.body}`);
      assert.ok((op.statuses ?? [200]).includes(res.statusCode), `${op.name} answered ${res.statusCode}, not one of its statuses`);
      if (res.statusCode === 204) {
        assert.equal(res.body, '');
        return;
      }
      assert.ok(op.output, `${op.name} answers with a body but declares no \`output\` schema`);
      // JSON, or one of the media types the operation declares it produces (a stored document).
      const mediaType = String(res.headers['content-type']).split(';')[0]?.trim() ?? '';
      assert.ok(mediaType === 'application/json' || op.produces?.includes(mediaType), `${op.name} answered ${mediaType}`);
      assert.ok(doc.paths[pathOf(op)]?.[op.method.toLowerCase()]?.responses[String(res.statusCode)], `${op.name}: status ${res.statusCode} is not documented`);
      const validate = validatorOf(pathOf(op), op.method, res.statusCode, mediaType);
      assert.ok(validate, `${op.name}: no documented response schema for ${res.statusCode}`);
      const body: unknown = res.json();
      assert.ok(validate(body), `${op.name}: ${JSON.stringify(validate.errors)}\n${res.body.slice(0, 500)}`);
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
