import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { checkAnswer, type OpenApiDoc, responseValidators } from '../helpers/openapi-schemas.js';

let t: TestApp;
let acme: Tenant;
let key: string;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  key = (await makeKey(t.database.db, acme, { scopes: ['read', 'products:write', 'sbom:write', 'sarif:write'] })).key;
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
    // Issue 32 finding 6: the 409 is declared for both pushes in /openapi.json, with its schema.
    const doc: OpenApiDoc = (await t.app.inject({ url: '/openapi.json', headers: { host: SITE } })).json();
    const validators = responseValidators(doc);
    checkAnswer(doc, validators, '/api/v1/sboms', 'POST', push, 'sboms.push to an archived product');
    const sarif = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sarif?product=cam-1',
      headers: { ...bearer(key), 'content-type': 'application/sarif+json' },
      payload: JSON.stringify({ version: '2.1.0', runs: [{ tool: { driver: { name: 'ESLint' } }, results: [] }] }),
    });
    assert.equal(sarif.statusCode, 409, sarif.body);
    assert.match(sarif.json().detail, /archived/);
    checkAnswer(doc, validators, '/api/v1/sarif', 'POST', sarif, 'sarif.push to an archived product');
    const restored = await call('POST', '/products/cam-1/restore', {});
    assert.equal(restored.json().archivedAt, null);
    assert.equal((await call('GET', '/products/nope')).statusCode, 404);
  });
});
