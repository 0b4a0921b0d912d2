import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { apiKeys, auditLog } from '../../src/db/schema/index.js';
import { sha256Hex } from '../../src/kernel/ids.js';
import { bearer, makeKey, makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

let t: TestApp;
let acme: Tenant;
let cookie: string;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  cookie = await signInCookie(t, acme.admin.email);
});
after(() => t.close());

const create = (payload: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/settings/api-keys',
    headers: { host: SITE, cookie, 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(payload),
  });

describe('POST /api/settings/api-keys', () => {
  it('creates a key: 201 with the value once, 64 lowercase hex, default expiry 365 days; only its digest is stored', async () => {
    const before = Date.now();
    const res = await create({ name: 'CI', scopes: ['read', 'sbom:write'], allowedIps: ['192.0.2.0/24', '2001:DB8::1'] });
    assert.equal(res.statusCode, 201);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['allowedIps', 'createdAt', 'expiresAt', 'id', 'key', 'name', 'scopes']);
    assert.match(body.key, /^[0-9a-f]{64}$/);
    assert.deepEqual(body.scopes, ['read', 'sbom:write']);
    assert.deepEqual(body.allowedIps, ['192.0.2.0/24', '2001:db8::1']);
    const days = (Date.parse(body.expiresAt) - before) / 86_400_000;
    assert.ok(days > 364.99 && days < 365.01, String(days));
    const [row] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, body.id));
    assert.equal(row?.keyDigest, sha256Hex(body.key));
    assert.ok(!JSON.stringify(row).includes(body.key));
    const audit = await t.database.db.select().from(auditLog).where(eq(auditLog.targetId, body.id));
    assert.equal(audit[0]?.action, 'keys.create');
    assert.ok(!JSON.stringify(audit).includes(body.key), 'no key value in the audit log');
  });

  it('validates: expiry 1..3650 days, known scopes, addresses or CIDR ranges', async () => {
    assert.equal((await create({ name: 'x', expiresInDays: 3650 })).statusCode, 201);
    for (const bad of [
      { name: 'x', expiresInDays: 3651 },
      { name: 'x', expiresInDays: 0 },
      { name: 'x', scopes: ['admin'] },
      { name: 'x', allowedIps: ['10.0.0.0/33'] },
      { name: 'x', allowedIps: ['example.com'] },
      { name: '' },
    ]) {
      const res = await create(bad);
      assert.equal(res.statusCode, 400, JSON.stringify(bad));
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    }
  });

  it('refuses an API key instead of a session with 401, even one with every scope', async () => {
    const { key } = await makeKey(t.database.db, acme);
    for (const req of [
      { method: 'GET' as const, url: '/api/settings/api-keys' },
      { method: 'POST' as const, url: '/api/settings/api-keys', payload: { name: 'self' } },
    ]) {
      const res = await t.app.inject({ ...req, headers: { ...bearer(key), 'content-type': 'application/json' } });
      assert.equal(res.statusCode, 401, req.method);
    }
  });

  it('refuses a non-Enterprise company with 403', async () => {
    const low = await makeTenant(t.database.db, 'reporting');
    const c = await signInCookie(t, low.admin.email);
    const res = await create({ name: 'x' }, { cookie: c });
    assert.equal(res.statusCode, 403);
    assert.match(res.json().detail, /Enterprise/);
  });

  it('refuses a form body (415) and a foreign Origin (403)', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/settings/api-keys',
      headers: { host: SITE, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'name=x',
    });
    assert.equal(form.statusCode, 415);
    assert.equal((await create({ name: 'x' }, { origin: 'http://acme.localhost:3000' })).statusCode, 403);
  });
});

describe('GET, rotate and DELETE', () => {
  it('lists keys without values or digests', async () => {
    const k = await makeKey(t.database.db, acme, { name: 'listed' });
    const res = await t.app.inject({ url: '/api/settings/api-keys', headers: { host: SITE, cookie } });
    assert.equal(res.statusCode, 200);
    const listed = res.json().find((x: { id: string }) => x.id === k.id);
    assert.equal(listed.name, 'listed');
    assert.equal(listed.keyHint, k.key.slice(-4));
    assert.equal(listed.status, 'active');
    assert.ok(!res.body.includes(k.key) && !res.body.includes(sha256Hex(k.key)));
  });

  it('rotate answers a new value and the old one stops at once', async () => {
    const k = await makeKey(t.database.db, acme);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/settings/api-keys/${k.id}/rotate`,
      headers: { host: SITE, cookie, 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().id, k.id);
    assert.notEqual(res.json().key, k.key);
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: bearer(k.key) })).statusCode, 401);
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: bearer(res.json().key) })).statusCode, 200);
  });

  it("another company's key id is 404 for rotate and revoke, and the key keeps working", async () => {
    const rival = await makeTenant(t.database.db);
    const k = await makeKey(t.database.db, rival);
    const rot = await t.app.inject({
      method: 'POST',
      url: `/api/settings/api-keys/${k.id}/rotate`,
      headers: { host: SITE, cookie, 'content-type': 'application/json' },
      payload: '{}',
    });
    assert.equal(rot.statusCode, 404);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/settings/api-keys/${k.id}`, headers: { host: SITE, cookie } });
    assert.equal(del.statusCode, 404);
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: bearer(k.key) })).statusCode, 200);
  });

  it('DELETE revokes: 204, the key is gone and answers 401', async () => {
    const k = await makeKey(t.database.db, acme);
    const res = await t.app.inject({ method: 'DELETE', url: `/api/settings/api-keys/${k.id}`, headers: { host: SITE, cookie } });
    assert.equal(res.statusCode, 204);
    assert.equal((await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, k.id))).length, 0);
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: bearer(k.key) })).statusCode, 401);
  });

  it('answers 404 for a malformed key id, never 500', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/settings/api-keys/not-a-uuid', headers: { host: SITE, cookie } });
    assert.equal(res.statusCode, 404);
  });
});
