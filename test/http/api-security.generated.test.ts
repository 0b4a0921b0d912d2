import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { API_BASE } from '../../src/http/api-routes.js';
import type { Operation } from '../../src/modules/operations/operation.js';
import { operatorContext } from '../../src/kernel/context.js';
import { SCOPES } from '../../src/modules/keys/keys.schemas.js';
import { setKeySuspended } from '../../src/modules/keys/suspend-key.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { registerWebhook } from '../../src/modules/webhooks/webhook-endpoints.js';
import { expireKey, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { OPERATION_FIXTURES } from '../helpers/operation-fixtures.js';
import { operationRequest } from '../helpers/operation-request.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

/**
 * Generated from the operation list (docs/architecture.md "The company API"): every `{base_url}` operation is walked with
 * each way a credential can be wrong, and with another company's data present. An operation added
 * to API_OPERATIONS is covered without touching this file.
 */
let t: TestApp;
let acme: Tenant;
let rival: Tenant;
const RIVAL_MARKER = 'rival-secret-product-7f3a';

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  rival = await makeTenant(t.database.db);
  await upsertProduct(t.database.db, operatorContext(), rival.company.id, { name: RIVAL_MARKER, identifier: RIVAL_MARKER, producer: RIVAL_MARKER });
  await fileReport(t.database.db, operatorContext(), rival.company, { description: RIVAL_MARKER, productName: RIVAL_MARKER }, 'api');
  await registerWebhook(t.database.db, operatorContext(), rival.company.id, { url: `https://${RIVAL_MARKER}.example.com/hook` }, { allowPrivate: false });
});
after(() => t.close());

/** Path parameters of an operation: its fixture's records, created for `tenant`, else the example's. */
async function paramsFor(op: Operation, tenant: Tenant): Promise<Record<string, string>> {
  const fixture = OPERATION_FIXTURES[op.name];
  if (fixture) return fixture(t.database.db, tenant.company);
  assert.ok(!op.path.includes(':'), `${op.name} has path parameters: add a fixture for it in test/helpers/operation-fixtures.ts`);
  return {};
}

const request = operationRequest;

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

async function expectStatus(opts: InjectOptions, status: number, detail?: RegExp): Promise<void> {
  const res = await t.app.inject(opts);
  assert.equal(res.statusCode, status, `${opts.method} ${opts.url}: ${res.body}`);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  if (detail) assert.match(res.json().detail, detail);
}

for (const op of API_OPERATIONS) {
  describe(`${op.method} ${API_BASE}${op.path} (${op.name}, scope ${op.scope})`, () => {
    it('answers 2xx with a key holding exactly its scope (so the refusals below mean something)', async () => {
      const { key } = await makeKey(t.database.db, acme, { scopes: [op.scope] });
      const res = await t.app.inject(request(op, auth(key), {}, {}, await paramsFor(op, acme)));
      assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${res.statusCode} ${res.body}`);
    });

    it('401 without a key', () => expectStatus(request(op, {}), 401, /Authorization header/));

    it('401 with a wrong key', () => expectStatus(request(op, auth('0'.repeat(64))), 401, /unknown or revoked/));

    it('401 with the key in the query string', async () => {
      const { key } = await makeKey(t.database.db, acme);
      await expectStatus(request(op, {}, {}, { api_key: key }), 401, /query parameter/);
    });

    it('401 with an expired key', async () => {
      const k = await makeKey(t.database.db, acme);
      await expireKey(t.database.db, k.id);
      await expectStatus(request(op, auth(k.key)), 401, /expired/);
    });

    it('401 with a key suspended by the operator CLI verb', async () => {
      const k = await makeKey(t.database.db, acme);
      await setKeySuspended(t.database.db, operatorContext(), k.id, true);
      await expectStatus(request(op, auth(k.key)), 401, /suspended/);
    });

    it(`401 with a key of a company below ${op.minPlan ?? 'enterprise'}`, async () => {
      const low = await makeTenant(t.database.db);
      const k = await makeKey(t.database.db, low);
      const { updateCompany } = await import('../../src/modules/companies/update-company.js');
      // The plan just below the operation's own minimum (Enterprise unless it says otherwise).
      const below = op.minPlan === 'reporting' ? 'free' : 'reporting';
      await updateCompany(t.database.db, operatorContext(), low.company.slug, { plan: below });
      await expectStatus(request(op, auth(k.key)), 401, op.minPlan === 'reporting' ? /reporting plan upward/ : /Enterprise/);
    });

    it('403 with a key lacking its scope', async () => {
      const others = SCOPES.filter((s) => s !== op.scope);
      const { key } = await makeKey(t.database.db, acme, { scopes: others });
      await expectStatus(request(op, auth(key)), 403, new RegExp(`lacks the scope "${op.scope}"`));
    });

    it('403 with an allowlisted key from the wrong address', async () => {
      const { key } = await makeKey(t.database.db, acme, { allowedIps: ['198.51.100.0/24'] });
      await expectStatus(request(op, auth(key), { remoteAddress: '203.0.113.5' }), 403, /allowlist/);
    });

    it("never shows another company's records", async () => {
      const { key } = await makeKey(t.database.db, acme);
      const res = await t.app.inject(request(op, auth(key), {}, {}, await paramsFor(op, acme)));
      assert.ok(res.statusCode < 300, res.body);
      assert.ok(!res.body.includes(RIVAL_MARKER), `${op.name} leaked another company's data`);
    });

    if (op.path.includes(':')) {
      it("answers 404 for another company's record, never 403", async () => {
        const { key } = await makeKey(t.database.db, acme);
        const theirs = await paramsFor(op, rival);
        const res = await t.app.inject(request(op, auth(key), {}, {}, theirs));
        assert.equal(res.statusCode, 404, `${op.name}: ${res.statusCode} ${res.body}`);
        assert.ok(!res.body.includes(RIVAL_MARKER));
      });

      if (/:[A-Za-z]*[iI]d(\/|$)/.test(op.path))
        it('answers 404 problem+json for a malformed id, never a database error', async () => {
          const { key } = await makeKey(t.database.db, acme);
          const ours = await paramsFor(op, acme);
          // Every parameter named like an id gets a value no row can have; the others stay valid.
          const bad = Object.fromEntries(Object.entries(ours).map(([k, v]) => [k, /id$/i.test(k) ? 'not-an-id' : v]));
          await expectStatus(request(op, auth(key), {}, {}, bad), 404);
        });
    }
  });
}

describe('tenancy of products', () => {
  it("an upsert with another company's identifier creates the caller's own product and leaves theirs alone", async () => {
    const { key } = await makeKey(t.database.db, acme);
    const res = await t.app.inject({
      method: 'POST',
      url: `${API_BASE}/products`,
      headers: { host: SITE, ...auth(key), 'content-type': 'application/json' },
      payload: { name: 'Mine', identifier: RIVAL_MARKER },
    });
    assert.equal(res.statusCode, 201);
    const { listProducts } = await import('../../src/modules/products/list-products.js');
    const theirs = await listProducts(t.database.db, rival.company.id);
    // Fixtures may have added other products of theirs; their product with this identifier is untouched.
    assert.deepEqual(
      theirs.filter((p) => p.identifier === RIVAL_MARKER).map((p) => p.name),
      [RIVAL_MARKER],
    );
  });
});
