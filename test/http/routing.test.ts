import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createMemoryRateLimiter } from '../../src/kernel/rate-limit.js';
import { createTestApp, portalHost, SITE, type TestApp, testConfig } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { makeCompany } from '../helpers/factories.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('host routing', () => {
  it('serves a known company portal on its subdomain, showing its name', async () => {
    const c = await makeCompany(t.database.db, { name: 'Acme <Robotics> & Co' });
    const res = await t.app.inject({ url: '/', headers: { host: portalHost(c.slug) } });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.ok(res.body.includes('Acme &lt;Robotics&gt; &amp; Co'), 'company name is present and escaped');
    assert.ok(!res.body.includes('<Robotics>'));
  });

  it('answers 404 problem+json for an unknown slug', async () => {
    const res = await t.app.inject({ url: '/', headers: { host: portalHost('no-such-company') } });
    assert.equal(res.statusCode, 404);
    assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
    const body = res.json();
    assert.equal(body.status, 404);
    assert.match(body.detail, /no portal exists at no-such-company\.localhost/);
  });

  it('answers 421 for a Host that is neither the site nor a portal', async () => {
    for (const host of ['evil.example', 'a.b.localhost:3000', '127.0.0.1:3000']) {
      const res = await t.app.inject({ url: '/', headers: { host } });
      assert.equal(res.statusCode, 421, host);
      assert.equal(res.json().title, 'Misdirected request');
    }
  });

  it('does not serve site pages on a portal host, nor portal pages on the site', async () => {
    const c = await makeCompany(t.database.db);
    const setupOnPortal = await t.app.inject({ url: '/setup', headers: { host: portalHost(c.slug) } });
    assert.equal(setupOnPortal.statusCode, 404);
    const problemsOnPortal = await t.app.inject({ url: '/problems/not-found', headers: { host: portalHost(c.slug) } });
    assert.equal(problemsOnPortal.statusCode, 404);
  });

  it('answers health probes on any host', async () => {
    const live = await t.app.inject({ url: '/healthz', headers: { host: '10.1.2.3:3000' } });
    assert.equal(live.statusCode, 200);
    assert.deepEqual(live.json(), { status: 'ok' });
    const ready = await t.app.inject({ url: '/readyz', headers: { host: SITE } });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().database, t.database.kind);
  });

  it('reports not ready while shutting down', async () => {
    t.deps.shuttingDown = true;
    try {
      const res = await t.app.inject({ url: '/readyz', headers: { host: SITE } });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().detail, 'shutting down');
    } finally {
      t.deps.shuttingDown = false;
    }
  });
});

describe('errors and request ids', () => {
  it('gives every response a request id, keeping a well-formed incoming one', async () => {
    const a = await t.app.inject({ url: '/healthz', headers: { host: SITE } });
    assert.match(a.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
    const b = await t.app.inject({ url: '/nowhere', headers: { host: SITE, 'x-request-id': 'trace-abc.123' } });
    assert.equal(b.headers['x-request-id'], 'trace-abc.123');
    assert.equal(b.json().requestId, 'trace-abc.123');
    const c = await t.app.inject({ url: '/healthz', headers: { host: SITE, 'x-request-id': 'bad id\nwith newline' } });
    assert.notEqual(c.headers['x-request-id'], 'bad id\nwith newline');
  });

  it('answers unknown routes with an RFC 9457 problem whose type resolves', async () => {
    const res = await t.app.inject({ url: '/api/v1/nothing?x=1', headers: { host: SITE } });
    assert.equal(res.statusCode, 404);
    const body = res.json();
    assert.equal(body.type, 'http://localhost:3000/problems/not-found');
    assert.equal(body.instance, '/api/v1/nothing');
    const doc = await t.app.inject({ url: new URL(body.type).pathname, headers: { host: SITE } });
    assert.equal(doc.statusCode, 200);
    assert.match(doc.body, /404 Not found/);
  });

  it('renders an HTML error page for browsers', async () => {
    const res = await t.app.inject({ url: '/', headers: { host: portalHost('ghost'), accept: 'text/html,*/*' } });
    assert.equal(res.statusCode, 404);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.body, /no portal exists at ghost\.localhost/);
  });

  it('hides the internals of a 5xx error', async () => {
    const database = await createTestDatabase();
    const app = await buildApp({ config: testConfig(), database, rateLimiter: createMemoryRateLimiter() });
    app.get('/boom', async () => {
      throw new Error('connection string postgres://secret@db/internal failed');
    });
    try {
      const res = await app.inject({ url: '/boom', headers: { host: SITE } });
      assert.equal(res.statusCode, 500);
      const body = res.json();
      assert.equal(body.title, 'Internal server error');
      assert.ok(!res.body.includes('secret'), 'no internals in the body');
      assert.equal(body.requestId, res.headers['x-request-id']);
    } finally {
      await app.close();
      await database.drop();
    }
  });

  it('maps a malformed JSON body to a 400 problem', async () => {
    const database = await createTestDatabase();
    const app = await buildApp({ config: testConfig(), database, rateLimiter: createMemoryRateLimiter() });
    app.post('/echo', async (req) => req.body);
    try {
      const res = await app.inject({ method: 'POST', url: '/echo', headers: { host: SITE, 'content-type': 'application/json' }, payload: '{"a":' });
      assert.equal(res.statusCode, 400);
      assert.match(res.headers['content-type'] as string, /problem\+json/);
      const big = await app.inject({
        method: 'POST',
        url: '/echo',
        headers: { host: SITE, 'content-type': 'application/json' },
        payload: JSON.stringify({ a: 'x'.repeat(1_100_000) }),
      });
      assert.equal(big.statusCode, 413);
      assert.equal(big.json().title, 'Request body too large');
    } finally {
      await app.close();
      await database.drop();
    }
  });

  it('sends the strict security headers on every response', async () => {
    const res = await t.app.inject({ url: '/healthz', headers: { host: SITE } });
    const csp = res.headers['content-security-policy'] as string;
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.equal(res.headers['cache-control'], 'no-store');
  });
});
