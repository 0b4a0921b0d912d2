import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let acme: Tenant;
let key: string;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  key = (await makeKey(t.database.db, acme, { scopes: ['read', 'products:write', 'sbom:write'] })).key;
});
after(() => t.close());

const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
  t.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { ...bearer(key), ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
  });

describe('GET /products/{identifier}, archive and restore', () => {
  it('gets one product, archives it (out of new evidence), and restores it', async () => {
    assert.equal((await call('POST', '/products', { name: 'Cam', identifier: 'cam-1' })).statusCode, 201);
    const got = await call('GET', '/products/cam-1');
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().name, 'Cam');
    assert.equal(got.json().archivedAt, null);
    const archived = await call('POST', '/products/cam-1/archive', {});
    assert.equal(archived.statusCode, 200);
    assert.ok(Date.parse(archived.json().archivedAt) > 0);
    const list = await call('GET', '/products');
    assert.ok(list.json()[0].archivedAt, 'the list keeps it, marked');
    const push = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sboms?product=cam-1',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [] }),
    });
    assert.equal(push.statusCode, 409);
    assert.match(push.json().detail, /archived/);
    const restored = await call('POST', '/products/cam-1/restore', {});
    assert.equal(restored.json().archivedAt, null);
    assert.equal((await call('GET', '/products/nope')).statusCode, 404);
  });
});
