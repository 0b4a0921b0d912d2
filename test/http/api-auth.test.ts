import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { setKeySuspended } from '../../src/modules/keys/suspend-key.js';
import { bearer, expireKey, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

let t: TestApp;
let acme: Tenant;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
});
after(() => t.close());

const get = (headers: Record<string, string>, url = '/api/v1/products') => t.app.inject({ method: 'GET', url, headers: { host: SITE, ...headers } });

function assertProblem(
  res: { statusCode: number; headers: Record<string, unknown>; json(): { status: number; detail: string } },
  status: number,
  detail: RegExp,
): void {
  assert.equal(res.statusCode, status);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.equal(res.json().status, status);
  assert.match(res.json().detail, detail);
}

describe('spec Authentication: bearer API keys', () => {
  it('rule 2: accepts a key in Authorization: Bearer and answers the company products', async () => {
    const { key } = await makeKey(t.database.db, acme);
    const res = await get(bearer(key));
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), []);
  });

  it('rule 2: refuses a key in a query parameter with 401 saying why', async () => {
    const { key } = await makeKey(t.database.db, acme);
    assertProblem(await get({}, `/api/v1/products?api_key=${key}`), 401, /only in the Authorization header.*query parameter "api_key"/);
    // Even next to a valid header: the copy in the URL is exposed and is refused.
    assertProblem(await get(bearer(key), `/api/v1/products?anything=${key}`), 401, /query parameter "anything"/);
  });

  it('rule 2: audits a real key found in a query parameter as a refused use of that key', async () => {
    const k = await makeKey(t.database.db, acme);
    assertProblem(await get({}, `/api/v1/products?q=${k.key}`), 401, /query parameter "q"/);
    const rows = await t.database.db.select().from(auditLog).where(eq(auditLog.actorId, k.id));
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.outcome, 'denied');
    assert.deepEqual(rows[0]?.details, { method: 'GET', path: '/api/v1/products', status: 401 });
    // A 64-hex value that is no key (say, a hash used as an identifier) is not refused for its shape.
    const { key } = await makeKey(t.database.db, acme);
    assert.equal((await get(bearer(key), `/api/v1/products?sha=${'ab'.repeat(32)}`)).statusCode, 200);
  });

  it('rule 2: never writes a key from a query string into the service log', async () => {
    const lines: string[] = [];
    const { pino } = await import('pino');
    const { requestLogSerializer } = await import('../../src/http/log-serializers.js');
    const { buildApp } = await import('../../src/app.js');
    const logger = pino({ level: 'info', serializers: { req: requestLogSerializer } }, { write: (l: string) => void lines.push(l) });
    const app = await buildApp(t.deps, logger);
    try {
      const { key } = await makeKey(t.database.db, acme);
      const res = await app.inject({ url: `/api/v1/products?api_key=${key}`, headers: { host: SITE } });
      assert.equal(res.statusCode, 401);
      assert.ok(
        lines.some((l) => l.includes('/api/v1/products')),
        'the request was logged',
      );
      assert.ok(!lines.some((l) => l.includes(key)), 'without the key');
    } finally {
      await app.close();
    }
  });

  it('rule 2: refuses a key in a cookie with 401 saying why', async () => {
    const { key } = await makeKey(t.database.db, acme);
    assertProblem(await get({ cookie: `theme=dark; api_key=${key}` }), 401, /cookie "api_key"/);
    assertProblem(await get({ cookie: `session=${key}` }), 401, /cookie "session"/);
    // Cookies of other applications on the same host (cookies ignore ports) do not get in the way.
    const other = await makeKey(t.database.db, acme);
    assert.equal((await get({ ...bearer(other.key), cookie: `token=abc; key=${'cd'.repeat(32)}` })).statusCode, 200);
  });

  it('rule 2: refuses a key in a request body field with 401 saying why', async () => {
    const { key } = await makeKey(t.database.db, acme);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: { host: SITE, 'content-type': 'application/json' },
      payload: { apiKey: key, name: 'x', identifier: 'y' },
    });
    assertProblem(res, 401, /body field "apiKey"/);
  });

  it('rule 2: refuses other schemes than Bearer (Basic, a bare key, X-API-Key)', async () => {
    const { key } = await makeKey(t.database.db, acme);
    assertProblem(await get({ authorization: `Basic ${Buffer.from(`x:${key}`).toString('base64')}` }), 401, /malformed Authorization/);
    assertProblem(await get({ authorization: key }), 401, /malformed Authorization/);
    assertProblem(await get({ 'x-api-key': key }), 401, /send an API key in the Authorization header/);
  });

  it('rule 3: no public registration endpoint exists', async () => {
    for (const url of ['/api/v1/keys', '/api/v1/api-keys', '/api/register', '/api/v1/register']) {
      const res = await t.app.inject({ method: 'POST', url, headers: { host: SITE, 'content-type': 'application/json' }, payload: {} });
      assert.equal(res.statusCode, 404, url);
    }
  });

  it('rule 6: the OAuth discovery documents answer 404', async () => {
    for (const url of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server']) {
      const res = await t.app.inject({ url, headers: { host: SITE } });
      assert.equal(res.statusCode, 404, url);
    }
  });
});

describe('spec Scopes rules and Errors table', () => {
  it('401 for a missing key', async () => {
    assertProblem(await get({}), 401, /send an API key/);
  });

  it('401 for an invalid key (well-formed but unknown)', async () => {
    assertProblem(await get(bearer('a'.repeat(64))), 401, /unknown or revoked/);
  });

  it('401 for a malformed key (uppercase hex, wrong length)', async () => {
    const { key } = await makeKey(t.database.db, acme);
    assertProblem(await get(bearer(key.toUpperCase())), 401, /malformed/);
    assertProblem(await get(bearer(key.slice(1))), 401, /malformed/);
  });

  it('401 for an expired key', async () => {
    const k = await makeKey(t.database.db, acme);
    await expireKey(t.database.db, k.id);
    assertProblem(await get(bearer(k.key)), 401, /expired/);
  });

  it('401 for a revoked key (revocation deletes it)', async () => {
    const k = await makeKey(t.database.db, acme);
    const { revokeKey } = await import('../../src/modules/keys/manage-keys.js');
    await revokeKey(t.database.db, { actor: { type: 'user', id: acme.admin.id } }, acme.company.id, k.id);
    assertProblem(await get(bearer(k.key)), 401, /unknown or revoked/);
  });

  it('401 for a suspended key, and 200 again once the operator lifts it', async () => {
    const k = await makeKey(t.database.db, acme);
    await setKeySuspended(t.database.db, operatorContext(), k.id, true);
    assertProblem(await get(bearer(k.key)), 401, /suspended/);
    await setKeySuspended(t.database.db, operatorContext(), k.id, false);
    assert.equal((await get(bearer(k.key))).statusCode, 200);
  });

  it('401 when the company is below the Enterprise plan', async () => {
    const other = await makeTenant(t.database.db);
    const k = await makeKey(t.database.db, other);
    for (const plan of ['reporting', 'free'] as const) {
      await updateCompany(t.database.db, operatorContext(), other.company.slug, { plan });
      assertProblem(await get(bearer(k.key)), 401, /Enterprise/);
    }
  });

  it('403 for a request outside the key scopes, naming the scope', async () => {
    const k = await makeKey(t.database.db, acme, { scopes: ['read'] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: { ...bearer(k.key), 'content-type': 'application/json' },
      payload: { name: 'n', identifier: 'i' },
    });
    assertProblem(res, 403, /lacks the scope "products:write"/);
    assert.equal((await get(bearer(k.key))).statusCode, 200);
  });

  it('a key with no scopes is unrestricted', async () => {
    const k = await makeKey(t.database.db, acme, { scopes: [] });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: { ...bearer(k.key), 'content-type': 'application/json' },
      payload: { name: 'Unrestricted', identifier: 'unres-1' },
    });
    assert.equal(res.statusCode, 201);
    assert.equal(res.json().identifier, 'unres-1');
  });

  it('403 for an address outside the allowlist; 200 inside it (IPv4 CIDR)', async () => {
    const k = await makeKey(t.database.db, acme, { allowedIps: ['10.1.0.0/16'] });
    assertProblem(await t.app.inject({ url: '/api/v1/products', headers: bearer(k.key), remoteAddress: '10.2.0.1' }), 403, /allowlist/);
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: bearer(k.key), remoteAddress: '10.1.200.3' })).statusCode, 200);
  });

  it('403 when an allowlist is set and the client address cannot be resolved', async () => {
    const proxied = await createTestApp({ TRUST_PROXY: 'true' });
    try {
      const tenant = await makeTenant(proxied.database.db);
      const k = await makeKey(proxied.database.db, tenant, { allowedIps: ['192.0.2.0/24'] });
      const res = await proxied.app.inject({ url: '/api/v1/products', headers: { ...bearer(k.key), 'x-forwarded-for': 'not-an-address' } });
      assertProblem(res, 403, /allowlist/);
      const ok = await proxied.app.inject({ url: '/api/v1/products', headers: { ...bearer(k.key), 'x-forwarded-for': '192.0.2.9' } });
      assert.equal(ok.statusCode, 200);
    } finally {
      await proxied.close();
    }
  });

  it('rotation issues a new value and stops the old one at once', async () => {
    const k = await makeKey(t.database.db, acme);
    const { rotateKey } = await import('../../src/modules/keys/manage-keys.js');
    const r = await rotateKey(t.database.db, { actor: { type: 'user', id: acme.admin.id } }, acme.company.id, k.id);
    assert.notEqual(r.key, k.key);
    assert.equal(r.id, k.id);
    assertProblem(await get(bearer(k.key)), 401, /unknown or revoked/);
    assert.equal((await get(bearer(r.key))).statusCode, 200);
  });

  it('every use of a key, allowed or refused, is in the company audit log', async () => {
    const k = await makeKey(t.database.db, acme, { scopes: ['read'] });
    await get({ ...bearer(k.key), 'user-agent': 'audit-probe/1' }, '/api/v1/products?x=1');
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: { ...bearer(k.key), 'content-type': 'application/json' },
      payload: { name: 'n', identifier: 'i' },
    });
    const rows = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.actorId, k.id), eq(auditLog.action, 'api.request')))
      .orderBy(auditLog.id);
    assert.equal(rows.length, 2);
    assert.equal(rows[0]?.companyId, acme.company.id);
    assert.equal(rows[0]?.outcome, 'success');
    assert.deepEqual(rows[0]?.details, { method: 'GET', path: '/api/v1/products', status: 200 });
    assert.equal(rows[0]?.userAgent, 'audit-probe/1');
    assert.equal(rows[0]?.ip, '127.0.0.1');
    assert.equal(rows[1]?.outcome, 'denied');
    assert.deepEqual(rows[1]?.details, { method: 'POST', path: '/api/v1/products', status: 403 });
    for (const r of rows) assert.ok(!JSON.stringify(r).includes(k.key), 'the key value never enters the audit log');
  });

  it('400 problem for an invalid product, naming the field', async () => {
    const k = await makeKey(t.database.db, acme);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: { ...bearer(k.key), 'content-type': 'application/json' },
      payload: { name: 'x'.repeat(256), identifier: 'ok' },
    });
    assertProblem(res, 400, /^name:/);
  });
});
