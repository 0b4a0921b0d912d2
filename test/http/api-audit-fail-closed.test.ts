import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, makeKey, makeTenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('key-use audit is fail-closed', () => {
  it('answers 503 instead of 200 when the audit row cannot be written, and 200 again once it can', async () => {
    const tenant = await makeTenant(t.database.db);
    const { key } = await makeKey(t.database.db, tenant);
    // A real failure of the real database: the audit table is briefly out of reach.
    await t.database.ddl('alter table audit_log rename to audit_log_away');
    try {
      const res = await t.app.inject({ url: '/api/v1/products', headers: bearer(key) });
      assert.equal(res.statusCode, 503);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.match(res.json().detail, /audit log could not be written/);
      assert.equal(res.json().type, 'http://localhost:3000/problems/unavailable');
      assert.ok(!res.body.includes('['), 'the products answer is not sent');
    } finally {
      await t.database.ddl('alter table audit_log_away rename to audit_log');
    }
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: bearer(key) })).statusCode, 200);
  });
});
