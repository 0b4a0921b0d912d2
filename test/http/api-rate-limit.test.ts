import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

let t: TestApp;
let acme: Tenant;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
});
after(() => t.close());

describe('per-key rate limit (docs/access.md "Rate limit": 100 per 60 s)', () => {
  it('accepts 100, refuses the 101st with 429 problem+json, Retry-After and the IETF fields', async () => {
    const { key } = await makeKey(t.database.db, acme);
    for (let i = 1; i <= 100; i++) {
      const res = await t.app.inject({ url: '/api/v1/products', headers: bearer(key) });
      assert.equal(res.statusCode, 200, `request ${i}`);
      assert.equal(res.headers['ratelimit-policy'], '"key";q=100;w=60');
      assert.match(String(res.headers.ratelimit), new RegExp(`^"key";r=${100 - i};t=\\d+$`));
    }
    const refused = await t.app.inject({ url: '/api/v1/products', headers: bearer(key) });
    assert.equal(refused.statusCode, 429);
    assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
    const retry = Number(refused.headers['retry-after']);
    assert.ok(retry >= 1 && retry <= 60, String(retry));
    assert.match(String(refused.headers.ratelimit), /^"key";r=0;t=\d+$/);
    assert.equal(refused.json().status, 429);
  });

  it('counts per key: another key of the same company is not affected', async () => {
    const { key } = await makeKey(t.database.db, acme);
    const res = await t.app.inject({ url: '/api/v1/products', headers: bearer(key) });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers.ratelimit), /^"key";r=99;/);
  });

  it('puts RateLimit-Policy on refusals too', async () => {
    const res = await t.app.inject({ url: '/api/v1/products', headers: { host: SITE } });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['ratelimit-policy'], '"key";q=100;w=60');
  });

  it('takes a raised limit from configuration (benchmarks only)', async () => {
    const raised = await createTestApp({ API_RATE_LIMIT: '1000000', API_RATE_WINDOW_SECONDS: '60' });
    try {
      const tenant = await makeTenant(raised.database.db);
      const { key } = await makeKey(raised.database.db, tenant);
      const res = await raised.app.inject({ url: '/api/v1/products', headers: bearer(key) });
      assert.equal(res.headers['ratelimit-policy'], '"key";q=1000000;w=60');
    } finally {
      await raised.close();
    }
  });
});
