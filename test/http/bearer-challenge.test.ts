import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { setKeySuspended } from '../../src/modules/keys/suspend-key.js';
import { bearer, expireKey, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

// Issue 22: RFC 6750 section 3 challenges on every 401 of the REST API and the MCP endpoint, and on
// every 403 for a missing scope; never an OAuth discovery pointer (docs/access.md "OAuth").

let t: TestApp;
let acme: Tenant;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
});
after(() => t.close());

type Res = { statusCode: number; headers: Record<string, unknown>; json(): Record<string, unknown> };

const rest = (headers: Record<string, string>, url = '/api/v1/products') => t.app.inject({ method: 'GET', url, headers: { host: SITE, ...headers } });
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const mcp = (headers: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url: '/api/mcp',
    headers: { host: SITE, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    payload: INIT,
  });

function assertChallenge(res: Res, status: number, challenge: string, detail: RegExp): void {
  assert.equal(res.statusCode, status);
  assert.equal(res.headers['www-authenticate'], challenge);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.equal(res.json().status, status);
  assert.match(String(res.json().detail), detail);
}

describe('REST: WWW-Authenticate on 401 and on 403 for a missing scope', () => {
  it('no credential: a bare Bearer challenge, without an error', async () => {
    assertChallenge(await rest({}), 401, 'Bearer', /send an API key in the Authorization header/);
  });

  it('another scheme counts as no bearer credential (RFC 6750 section 3.1)', async () => {
    assertChallenge(await rest({ authorization: 'Basic dXNlcjpwYXNz' }), 401, 'Bearer', /malformed Authorization header/);
  });

  it('an unknown, malformed, expired or suspended key: invalid_token', async () => {
    assertChallenge(await rest(bearer('0'.repeat(64))), 401, 'Bearer error="invalid_token"', /unknown or revoked API key/);
    assertChallenge(await rest(bearer('NOT-A-KEY')), 401, 'Bearer error="invalid_token"', /malformed Authorization header/);
    const expired = await makeKey(t.database.db, acme);
    await expireKey(t.database.db, expired.id);
    assertChallenge(await rest(bearer(expired.key)), 401, 'Bearer error="invalid_token"', /expired/);
    const suspended = await makeKey(t.database.db, acme);
    await setKeySuspended(t.database.db, operatorContext(), suspended.id, true);
    assertChallenge(await rest(bearer(suspended.key)), 401, 'Bearer error="invalid_token"', /suspended/);
  });

  it('a key of a company below the plan: invalid_token', async () => {
    const low = await makeTenant(t.database.db);
    const k = await makeKey(t.database.db, low);
    await updateCompany(t.database.db, operatorContext(), low.company.slug, { plan: 'reporting' });
    assertChallenge(await rest(bearer(k.key)), 401, 'Bearer error="invalid_token"', /Enterprise plan/);
  });

  it('a key outside the Authorization header: invalid_request', async () => {
    const { key } = await makeKey(t.database.db, acme);
    assertChallenge(await rest({}, `/api/v1/products?api_key=${key}`), 401, 'Bearer error="invalid_request"', /query parameter "api_key"/);
    // Next to a valid header too: two methods of sending a credential.
    assertChallenge(await rest(bearer(key), `/api/v1/products?token=${key}`), 401, 'Bearer error="invalid_request"', /query parameter "token"/);
  });

  it('a key lacking the route scope: 403 with insufficient_scope naming it, in the header and the body', async () => {
    const k = await makeKey(t.database.db, acme, { scopes: ['read'] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: { ...bearer(k.key), 'content-type': 'application/json' },
      payload: { name: 'n', identifier: 'i' },
    });
    assertChallenge(res, 403, 'Bearer error="insufficient_scope", scope="products:write"', /^this API key lacks the scope "products:write"$/);
    const push = await t.app.inject({
      method: 'POST',
      url: '/api/v1/sboms?product=x',
      headers: { ...bearer(k.key), 'content-type': 'application/json' },
      payload: {},
    });
    assertChallenge(push, 403, 'Bearer error="insufficient_scope", scope="sbom:write"', /lacks the scope "sbom:write"/);
  });

  it('a 403 for the allowlist is no scope challenge, and a success carries no challenge', async () => {
    const k = await makeKey(t.database.db, acme, { allowedIps: ['10.1.0.0/16'] });
    const refused = await t.app.inject({ url: '/api/v1/products', headers: bearer(k.key), remoteAddress: '10.2.0.1' });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.headers['www-authenticate'], undefined);
    const ok = await t.app.inject({ url: '/api/v1/products', headers: bearer(k.key), remoteAddress: '10.1.0.9' });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.headers['www-authenticate'], undefined);
  });

  it('a browser asking for HTML gets the same challenge on its error page', async () => {
    const res = await rest({ accept: 'text/html', authorization: `Bearer ${'1'.repeat(64)}` });
    assert.equal(res.statusCode, 401);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.equal(res.headers['www-authenticate'], 'Bearer error="invalid_token"');
  });

  it('session routes, outside the bearer door, send no Bearer challenge', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/session',
      headers: { host: SITE, 'content-type': 'application/json' },
      payload: { email: 'nobody@example.com', password: 'wrong password here' },
    });
    assert.equal(res.statusCode, 401);
    assert.equal(res.headers['www-authenticate'], undefined);
  });
});

describe('MCP: WWW-Authenticate on 401, with no OAuth discovery', () => {
  it('no credential: a bare Bearer challenge, without resource_metadata', async () => {
    const res = await mcp({});
    assertChallenge(res, 401, 'Bearer', /send an API key in the Authorization header/);
  });

  it('a bad key: invalid_token, without resource_metadata', async () => {
    assertChallenge(await mcp({ authorization: `Bearer ${'0'.repeat(64)}` }), 401, 'Bearer error="invalid_token"', /unknown or revoked API key/);
    const expired = await makeKey(t.database.db, acme);
    await expireKey(t.database.db, expired.id);
    assertChallenge(await mcp({ authorization: `Bearer ${expired.key}` }), 401, 'Bearer error="invalid_token"', /expired/);
  });

  it('a good key is answered without a challenge', async () => {
    const { key } = await makeKey(t.database.db, acme);
    const res = await mcp({ authorization: `Bearer ${key}` });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['www-authenticate'], undefined);
  });

  it('no OAuth discovery document exists for a client that follows a challenge', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp', '/.well-known/oauth-authorization-server']) {
      assert.equal((await t.app.inject({ url: path, headers: { host: SITE } })).statusCode, 404, path);
    }
  });
});
