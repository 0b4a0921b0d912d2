import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let acme: Tenant;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
});
after(() => t.close());

describe('webhook URLs shown to a read-only key (issue 24)', () => {
  it('keep scheme, host and port but not the path and query, which are often the credential', async () => {
    const writer = await makeKey(t.database.db, acme, { scopes: ['read', 'webhooks:write'] });
    const reader = await makeKey(t.database.db, acme, { scopes: ['read'] });
    const url = 'https://hooks.example.com:8443/services/T000/B000/XXXXsecretXXXX?token=abc';
    const reg = await t.app.inject({ method: 'POST', url: '/api/v1/webhooks/register', headers: bearer(writer.key), payload: { url } });
    assert.equal(reg.statusCode, 201, reg.body);
    const full = await t.app.inject({ url: '/api/v1/webhooks', headers: bearer(writer.key) });
    assert.deepEqual(
      full.json().map((h: { url: string }) => h.url),
      [url],
    );
    const masked = await t.app.inject({ url: '/api/v1/webhooks', headers: bearer(reader.key) });
    assert.equal(masked.statusCode, 200);
    assert.deepEqual(
      masked.json().map((h: { url: string }) => h.url),
      ['https://hooks.example.com:8443/…'],
    );
    assert.doesNotMatch(masked.body, /secret|token/);
  });
});
