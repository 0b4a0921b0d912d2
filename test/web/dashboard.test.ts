import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeKey, makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { TEST_PASSWORD } from '../helpers/factories.js';

let t: TestApp;
let acme: Tenant;
let cookie: string;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  cookie = await signInCookie(t, acme.admin.email);
});
after(() => t.close());

const page = (url: string, c = cookie) => t.app.inject({ url, headers: { host: SITE, cookie: c } });
const csrfOf = (body: string): string => /name="_csrf" value="([0-9a-f]+)"/.exec(body)?.[1] ?? '';
const form = (url: string, fields: Record<string, string | string[]>, c = cookie) => {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) p.append(k, x);
  return t.app.inject({ method: 'POST', url, headers: { host: SITE, cookie: c, 'content-type': 'application/x-www-form-urlencoded' }, payload: p.toString() });
};

describe('sign-in form', () => {
  it('sends a signed-out visitor to /login and back after signing in', async () => {
    const res = await page('/settings/api-keys', '');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/login?next=%2Fsettings%2Fapi-keys');
    const login = await page('/login?next=%2Fsettings%2Fapi-keys', '');
    const loginCookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
    const post = await form('/login', { _csrf: csrfOf(login.body), email: acme.admin.email, password: TEST_PASSWORD, next: '/settings/api-keys' }, loginCookie);
    assert.equal(post.statusCode, 303);
    assert.equal(post.headers.location, '/settings/api-keys');
    assert.match(String(post.headers['set-cookie']), /^cradle_session=[0-9a-f]{64};/);
  });

  it('refuses a sign-in form without its CSRF token, and never redirects off-site', async () => {
    const login = await page('/login', '');
    const loginCookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
    const noToken = await form('/login', { email: acme.admin.email, password: TEST_PASSWORD }, loginCookie);
    assert.equal(noToken.statusCode, 403);
    assert.equal(noToken.headers['set-cookie']?.toString().includes('cradle_session'), false);
    const offsite = await form(
      '/login',
      { _csrf: csrfOf(login.body), email: acme.admin.email, password: TEST_PASSWORD, next: '//evil.example/x' },
      loginCookie,
    );
    assert.equal(offsite.statusCode, 303);
    assert.equal(offsite.headers.location, '/dashboard');
  });

  it('shows the form again with 401 on a wrong password', async () => {
    const login = await page('/login', '');
    const loginCookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
    const res = await form('/login', { _csrf: csrfOf(login.body), email: acme.admin.email, password: 'nope' }, loginCookie);
    assert.equal(res.statusCode, 401);
    assert.match(res.body, /e-mail address or password is wrong/);
  });
});

describe('dashboard shell and API keys page', () => {
  it('shows the signed-in company, navigation and a sign-out form with a CSRF token', async () => {
    const res = await page('/dashboard');
    assert.equal(res.statusCode, 200);
    assert.ok(res.body.includes(acme.company.name));
    assert.match(res.body, /href="\/settings\/api-keys"/);
    assert.match(res.body, /<form method="post" action="\/logout" class="inline"><input type="hidden" name="_csrf" value="[0-9a-f]{64}">/);
  });

  it('refuses a key-creation form without the CSRF token', async () => {
    const res = await form('/settings/api-keys', { name: 'no token' });
    assert.equal(res.statusCode, 403);
  });

  it('creates a key from the form, shows the value once, and never again', async () => {
    const pageRes = await page('/settings/api-keys');
    const res = await form('/settings/api-keys', {
      _csrf: csrfOf(pageRes.body),
      name: '<script>alert(1)</script>',
      scopes: ['read', 'products:write'],
      expiresInDays: '30',
      allowedIps: '192.0.2.0/24\n2001:db8::/32',
    });
    assert.equal(res.statusCode, 201);
    const value = /id="new-key" class="secret" readonly value="([0-9a-f]{64})"/.exec(res.body)?.[1];
    assert.ok(value, 'the value is shown');
    assert.ok(!res.body.includes('<script>alert(1)</script>'), 'the name is escaped');
    assert.ok(res.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    const again = await page('/settings/api-keys');
    assert.ok(!again.body.includes(value), 'not shown a second time');
    assert.ok(again.body.includes(`…${value.slice(-4)}`));
  });

  it('re-renders the form with 400 and the message on invalid input', async () => {
    const pageRes = await page('/settings/api-keys');
    const res = await form('/settings/api-keys', { _csrf: csrfOf(pageRes.body), name: 'x', expiresInDays: '4000' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /class="error-text">[^<]*3650/);
  });

  it('rotates and revokes from the page', async () => {
    const k = await makeKey(t.database.db, acme, { name: 'to rotate' });
    const csrf = csrfOf((await page('/settings/api-keys')).body);
    const rotated = await form(`/settings/api-keys/${k.id}/rotate`, { _csrf: csrf });
    assert.equal(rotated.statusCode, 200);
    const newValue = /id="new-key" class="secret" readonly value="([0-9a-f]{64})"/.exec(rotated.body)?.[1];
    assert.ok(newValue && newValue !== k.key);
    const revoked = await form(`/settings/api-keys/${k.id}/revoke`, { _csrf: csrf });
    assert.equal(revoked.statusCode, 303);
    assert.ok(!(await page('/settings/api-keys')).body.includes(k.id));
  });

  it("says on the overview what comes next, as the compliance page does: a new company's first task and the next deadline", async () => {
    const fresh = await makeTenant(t.database.db);
    const res = await page('/dashboard', await signInCookie(t, fresh.admin.email));
    assert.match(res.body, /<h2 id="next-title">What next<\/h2>/);
    assert.match(
      res.body,
      /<dd id="next-task"><strong>Products with digital elements registered for assessment<\/strong>.*?<a href="\/products[^"]*">Register your first product/s,
    );
    assert.match(res.body, /Next deadline<\/dt><dd><strong>\d{4}-\d\d-\d\d<\/strong>/);
    const free = await makeTenant(t.database.db, 'free');
    const low = await page('/dashboard', await signInCookie(t, free.admin.email));
    assert.match(low.body, /available from the Reporting plan upward; this company is on the Free plan/);
  });

  it('tells a company below Enterprise that keys need it, without a create form', async () => {
    const low = await makeTenant(t.database.db, 'free');
    const res = await page('/settings/api-keys', await signInCookie(t, low.admin.email));
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /API access requires the Enterprise plan/);
    assert.ok(!res.body.includes('action="/settings/api-keys"'));
  });
});

describe('audit viewer', () => {
  it("lists key uses and filters by outcome, never another company's rows", async () => {
    const k = await makeKey(t.database.db, acme, { scopes: ['read'] });
    await t.app.inject({ url: '/api/v1/products', headers: { host: SITE, authorization: `Bearer ${k.key}` } });
    await t.app.inject({
      method: 'POST',
      url: '/api/v1/products',
      headers: { host: SITE, authorization: `Bearer ${k.key}`, 'content-type': 'application/json' },
      payload: '{}',
    });
    const rival = await makeTenant(t.database.db);
    const rk = await makeKey(t.database.db, rival);
    await t.app.inject({ url: '/api/v1/products', headers: { host: SITE, authorization: `Bearer ${rk.key}` } });

    const all = await page(`/audit?actorId=${k.id}`);
    assert.equal(all.statusCode, 200);
    assert.ok(all.body.includes('GET /api/v1/products → 200'));
    assert.ok(all.body.includes('POST /api/v1/products → 403'));
    const denied = await page(`/audit?actorId=${k.id}&outcome=denied`);
    assert.ok(denied.body.includes('POST /api/v1/products → 403'));
    assert.ok(!denied.body.includes('GET /api/v1/products → 200'));
    const rivalRows = await page(`/audit?actorId=${rk.id}`);
    assert.match(rivalRows.body, /No entries match/);
    // People read who acted and when: the key by its name, a member by address, times with seconds and zone.
    assert.match(all.body, /<td><time datetime="[^"]+">\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC<\/time><\/td>\s*<td>API key <q>test key<\/q><\/td>/);
    assert.ok(!all.body.includes(`<code>${k.id}</code>`), 'no bare key id as the actor');
    const members = await page('/audit?actorType=user');
    assert.ok(members.body.includes(`<td>${acme.admin.email}</td>`));
  });

  it('answers 400 and ignores invalid filters instead of failing', async () => {
    const res = await page('/audit?outcome=bogus&from=yesterday');
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /Some filters were invalid/);
  });
});
