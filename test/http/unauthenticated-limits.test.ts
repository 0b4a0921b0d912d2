import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

// Issue 24, finding 2: key-shaped values in an unauthenticated request each cost a key lookup.

const hex = () => randomBytes(32).toString('hex');
let t: TestApp;
let acme: Tenant;

before(async () => {
  t = await createTestApp({ API_UNAUTHENTICATED_LIMIT: '6' });
  acme = await makeTenant(t.database.db);
});
after(() => t.close());

const post = (body: Record<string, string>, remoteAddress: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/products',
    headers: { host: SITE, 'content-type': 'application/json', ...headers },
    payload: body,
    remoteAddress,
  });

describe('key-shaped values in a request', () => {
  it('refuses a 1 MB body of 13,000 key-shaped fields unread, naming the limit', async () => {
    const body = Object.fromEntries(Array.from({ length: 13_000 }, (_, i) => [`f${i}`, hex()]));
    assert.ok(JSON.stringify(body).length > 900_000);
    const res = await post(body, '192.0.2.10');
    assert.equal(res.statusCode, 400);
    assert.match(res.json().detail, /carries 13000 values shaped like API keys .* at most 4 are accepted/);
  });

  it('looks up at most 4: a real key among 4 candidates is caught as misplaced, among 5 the request is refused unread', async () => {
    const k = await makeKey(t.database.db, acme);
    const four = await post({ a: hex(), b: hex(), c: hex(), d: k.key }, '192.0.2.11');
    assert.equal(four.statusCode, 401);
    assert.match(four.json().detail, /this request carries one in the body field "d"/);
    const five = await post({ a: hex(), b: hex(), c: hex(), d: hex(), e: k.key }, '192.0.2.12');
    assert.equal(five.statusCode, 400);
    // The same value repeated is one candidate.
    const repeated = await post({ a: k.key, b: k.key, c: k.key, d: k.key, e: k.key, f: k.key }, '192.0.2.13');
    assert.equal(repeated.statusCode, 401);
  });
});

describe('unauthenticated requests per address', () => {
  it('holds an address off after 6 refusals, before any lookup, while known keys from it still pass', async () => {
    const k = await makeKey(t.database.db, acme);
    const ip = '198.51.100.44';
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: bearer(k.key), remoteAddress: ip })).statusCode, 200);
    for (let i = 0; i < 6; i++) {
      const r = await t.app.inject({ url: '/api/v1/products', headers: bearer(hex()), remoteAddress: ip });
      assert.equal(r.statusCode, 401, `refusal ${i + 1}`);
    }
    const held = await t.app.inject({ url: '/api/v1/products', headers: bearer(hex()), remoteAddress: ip });
    assert.equal(held.statusCode, 429);
    assert.match(held.json().detail, /too many requests without a valid API key from your network/);
    assert.ok(Number(held.headers['retry-after']) > 0);
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: { host: SITE }, remoteAddress: ip })).statusCode, 429, 'no key at all: held too');
    // The key this instance already knows passes; another address is not held.
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: bearer(k.key), remoteAddress: ip })).statusCode, 200);
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: bearer(hex()), remoteAddress: '198.51.100.45' })).statusCode, 401);
  });
});
