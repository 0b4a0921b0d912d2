import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { auditLog, recoveryCodes, users } from '../../src/db/schema/index.js';
import { createAdmin } from '../../src/modules/users/create-admin.js';
import { operatorContext } from '../../src/kernel/context.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';
import { TEST_PASSWORD } from '../helpers/factories.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

/** The code of the step `steps` from now (the server accepts one step either side). */
const codeAt = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
const secretOf = (body: string) => (/<code id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(body)?.[1] ?? '').replace(/ /g, '');
const codesOf = (body: string) => (/<pre class="key" id="recovery-codes">([^<]+)<\/pre>/.exec(body)?.[1] ?? '').split('\n');
const jsonSignIn = (payload: Record<string, string>, remoteAddress: string) =>
  t.app.inject({ method: 'POST', url: '/api/session', headers: { host: SITE, 'content-type': 'application/json' }, payload, remoteAddress });
const audit = (tenant: Tenant, action: string) =>
  t.database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.companyId, tenant.company.id), eq(auditLog.action, action)));

/** Enrols the tenant's administrator through the pages; returns the seed and the recovery codes. */
async function enrol(tenant: Tenant): Promise<{ secret: string; codes: string[]; client: ReturnType<typeof dashboardClient> }> {
  const c = dashboardClient(t, await signInCookie(t, tenant.admin.email));
  const page = await c.form('/account/second-factor/start', { password: TEST_PASSWORD });
  assert.equal(page.statusCode, 200);
  const secret = secretOf(page.body);
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.match(page.body, /<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  assert.match(page.body, /otpauth:\/\/totp\/Cradle:[^<]*secret=[A-Z2-7]{32}/);
  const wrong = await c.form('/account/second-factor/confirm', { code: '000000' === codeAt(secret) ? '111111' : '000000' });
  assert.equal(wrong.statusCode, 400);
  assert.match(wrong.body, /the code is wrong/);
  assert.equal(secretOf(wrong.body), '', 'a refused code does not show the key again');
  const ok = await c.form('/account/second-factor/confirm', { code: codeAt(secret) });
  assert.equal(ok.statusCode, 200);
  const codes = codesOf(ok.body);
  assert.equal(codes.length, 10);
  for (const code of codes) assert.match(code, /^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/);
  return { secret, codes, client: c };
}

/** The form sign-in up to the code page: the cookie of the CSRF double submit and the page. */
async function passwordStep(email: string, remoteAddress = '127.0.0.1') {
  const login = await t.app.inject({ url: '/login', headers: { host: SITE } });
  const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
  const csrf = /name="_csrf" value="([0-9a-f]+)"/.exec(login.body)?.[1] ?? '';
  const res = await t.app.inject({
    method: 'POST',
    url: '/login',
    remoteAddress,
    headers: { host: SITE, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrf, email, password: TEST_PASSWORD }).toString(),
  });
  return res;
}
async function codeStep(page: { body: string; headers: Record<string, unknown> }, code: string, remoteAddress = '127.0.0.1') {
  const cookie = String(page.headers['set-cookie']).split(';')[0] ?? '';
  const csrf = /name="_csrf" value="([0-9a-f]+)"/.exec(page.body)?.[1] ?? '';
  const pending = /name="pending" value="([0-9a-f]+)"/.exec(page.body)?.[1] ?? '';
  return t.app.inject({
    method: 'POST',
    url: '/login/second-factor',
    remoteAddress,
    headers: { host: SITE, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrf, pending, code }).toString(),
  });
}

describe('TOTP second factor', () => {
  let acme: Tenant;
  let secret: string;
  let codes: string[];
  before(async () => {
    acme = await makeTenant(t.database.db);
    ({ secret, codes } = await enrol(acme));
  });

  it('stores only digests of the recovery codes and audits the enrolment without secrets', async () => {
    const rows = await t.database.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, acme.admin.id));
    assert.equal(rows.length, 10);
    for (const c of codes) assert.ok(!rows.some((r) => r.codeDigest.includes(c.replace(/-/g, ''))));
    const [row] = await audit(acme, 'account.second_factor_enabled');
    assert.deepEqual(row?.details, { method: 'totp', recoveryCodes: 10 });
    const all = JSON.stringify(await t.database.db.select().from(auditLog).where(eq(auditLog.companyId, acme.company.id)));
    assert.ok(!all.includes(secret) && !codes.some((c) => all.includes(c)), 'no seed or recovery code in the audit log');
  });

  it('asks for a code after the password, signs in with it, and refuses the same code again', async () => {
    const step = await passwordStep(acme.admin.email);
    assert.equal(step.statusCode, 200);
    assert.match(step.body, /Enter your code/);
    assert.equal(String(step.headers['set-cookie']).includes('cradle_session='), false, 'no session before the code');
    const code = codeAt(secret, 1);
    const done = await codeStep(step, code);
    assert.equal(done.statusCode, 303);
    assert.equal(done.headers.location, '/dashboard');
    assert.match(String(done.headers['set-cookie']), /^cradle_session=[0-9a-f]{64};/);
    const again = await codeStep(await passwordStep(acme.admin.email), code);
    assert.equal(again.statusCode, 401);
    assert.match(again.body, /already used/);
    const signIns = await audit(acme, 'session.sign_in');
    assert.ok(signIns.some((r) => r.outcome === 'success' && (r.details as { secondFactor?: string }).secondFactor === 'totp'));
    assert.ok(signIns.some((r) => r.outcome === 'failure' && (r.details as { reason?: string }).reason === 'replayed code'));
  });

  it('takes the code as "totp" in JSON sign-in, and says when it is missing', async () => {
    const missing = await jsonSignIn({ email: acme.admin.email, password: TEST_PASSWORD }, '192.0.2.101');
    assert.equal(missing.statusCode, 401);
    assert.match(missing.json().detail, /second factor: send the code .* as "totp"/);
    assert.equal(missing.headers['set-cookie'], undefined);
    const wrongCode = await jsonSignIn({ email: acme.admin.email, password: TEST_PASSWORD, totp: '12345' }, '192.0.2.101');
    assert.equal(wrongCode.statusCode, 401);
    assert.match(wrongCode.json().detail, /second-factor code is wrong/);
  });

  it('holds wrong codes in the sign-in throttle: after 5 from one address, even the right code waits', async () => {
    const address = '198.51.100.44';
    const step = await passwordStep(acme.admin.email, address);
    // The password step's own reservation counts as one failure until the code passes.
    const answers: number[] = [];
    let page = step;
    for (let i = 0; i < 4; i++) {
      const res = await codeStep(page, i % 2 ? '999999' : '000001', address);
      answers.push(res.statusCode);
      if (res.statusCode === 401 && /name="pending"/.test(res.body)) page = res;
    }
    assert.deepEqual(answers, [401, 401, 401, 401]);
    const held = await codeStep(page, codeAt(secret, 1), address);
    assert.equal(held.statusCode, 429);
    assert.equal(held.headers['retry-after'], '900');
    const denied = await audit(acme, 'session.sign_in');
    assert.ok(denied.some((r) => r.outcome === 'denied' && (r.details as { step?: string }).step === 'second factor'));
  });

  it('lets a recovery code sign in once, and counts what is left', async () => {
    const code = codes[0] ?? '';
    const ok = await jsonSignIn({ email: acme.admin.email, password: TEST_PASSWORD, totp: code.toUpperCase() }, '192.0.2.102');
    assert.equal(ok.statusCode, 204);
    const twice = await jsonSignIn({ email: acme.admin.email, password: TEST_PASSWORD, totp: code }, '192.0.2.102');
    assert.equal(twice.statusCode, 401);
    const rows = await audit(acme, 'account.recovery_code_used');
    assert.deepEqual(
      rows.map((r) => r.details),
      [{ remaining: 9 }],
    );
    assert.ok(!JSON.stringify(rows).includes(code));
  });

  it('keeps the seed sealed at rest', async () => {
    const [row] = await t.database.db.select({ s: users.totpSecret }).from(users).where(eq(users.id, acme.admin.id));
    assert.ok(row?.s);
    assert.notEqual(row.s, secret);
    assert.ok(!row.s.includes(secret));
  });

  it('turns off only with the current password and a code, then signs in with the password alone', async () => {
    const other = await makeTenant(t.database.db);
    const { secret: s2 } = await enrol(other);
    // One code, computed once: computed again it could belong to the next time step (not a replay).
    const spent = codeAt(s2, 1);
    const c = dashboardClient(
      t,
      (await jsonSignIn({ email: other.admin.email, password: TEST_PASSWORD, totp: spent }, '192.0.2.103')).headers['set-cookie']?.toString().split(';')[0] ??
        '',
    );
    const badPw = await c.form('/account/second-factor/disable', { password: 'not the password at all', code: spent });
    assert.equal(badPw.statusCode, 400);
    assert.match(badPw.body, /current password is wrong/);
    // The next step's code was spent signing in: a replay, refused.
    const off = await c.form('/account/second-factor/disable', { password: TEST_PASSWORD, code: spent });
    assert.equal(off.statusCode, 400);
    assert.match(off.body, /the code is wrong or was already used/);
    const rc = await c.form('/account/second-factor/recovery-codes', { password: TEST_PASSWORD });
    const fresh = codesOf(rc.body);
    assert.equal(fresh.length, 10);
    const done = await c.form('/account/second-factor/disable', { password: TEST_PASSWORD, code: fresh[3] ?? '' });
    assert.equal(done.statusCode, 200);
    assert.match(done.body, /The second factor is off/);
    const [row] = await t.database.db.select({ s: users.totpSecret, at: users.totpEnabledAt }).from(users).where(eq(users.id, other.admin.id));
    assert.deepEqual(row, { s: null, at: null });
    assert.equal((await jsonSignIn({ email: other.admin.email, password: TEST_PASSWORD }, '192.0.2.104')).statusCode, 204);
    assert.equal((await audit(other, 'account.second_factor_disabled')).filter((r) => r.outcome === 'success').length, 1);
  });
});

describe('a session alone (issue 32, finding 2)', () => {
  it('cannot start a set-up without the current password, and never shows a pending key again', async () => {
    const acme = await makeTenant(t.database.db);
    const c = dashboardClient(t, await signInCookie(t, acme.admin.email));
    const pendingOf = async () => (await t.database.db.select({ p: users.totpPendingSecret }).from(users).where(eq(users.id, acme.admin.id)))[0]?.p;
    for (const fields of [{}, { password: 'not the password at all' }] as Record<string, string>[]) {
      const res = await c.form('/account/second-factor/start', fields);
      assert.equal(res.statusCode, 400, res.body.slice(0, 300));
      assert.match(res.body, /current password is wrong/);
      assert.equal(secretOf(res.body), '');
      assert.equal(await pendingOf(), null, 'nothing started');
    }
    const started = await c.form('/account/second-factor/start', { password: TEST_PASSWORD });
    const secret = secretOf(started.body);
    assert.match(secret, /^[A-Z2-7]{32}$/);
    assert.ok(await pendingOf());
    // Another holder of the same cookie opens the page: no key, no set-up link.
    const again = await c.page('/account/second-factor');
    assert.equal(again.statusCode, 200);
    assert.equal(secretOf(again.body), '');
    assert.ok(!again.body.includes(secret) && !again.body.includes('otpauth://'), 'the pending key is not shown on reload');
    assert.match(again.body, /its key is not shown again/);
    // Starting again needs the password again too.
    assert.equal((await c.form('/account/second-factor/start', {})).statusCode, 400);
    const ok = await c.form('/account/second-factor/confirm', { code: codeAt(secret) });
    assert.equal(ok.statusCode, 200);
    assert.equal(codesOf(ok.body).length, 10);
  });

  it('cannot make new recovery codes or turn the second factor off without the current password', async () => {
    const acme = await makeTenant(t.database.db);
    const { secret, client: c } = await enrol(acme);
    const [before] = await t.database.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, acme.admin.id)).limit(1);
    const regen = await c.form('/account/second-factor/recovery-codes', {});
    assert.equal(regen.statusCode, 400);
    assert.match(regen.body, /current password is wrong/);
    const off = await c.form('/account/second-factor/disable', { code: codeAt(secret, 1) });
    assert.equal(off.statusCode, 400);
    const [row] = await t.database.db.select({ s: users.totpSecret }).from(users).where(eq(users.id, acme.admin.id));
    assert.ok(row?.s, 'still on');
    const [after] = await t.database.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, acme.admin.id)).limit(1);
    assert.deepEqual(after, before, 'the recovery codes are unchanged');
  });
});

describe("the company's requirement", () => {
  it('sends a member without a second factor to set one up and lets them reach nothing else', async () => {
    const acme = await makeTenant(t.database.db);
    const member = await createAdmin(t.database.db, operatorContext(), acme.company.slug, {
      email: `member-${Date.now()}@example.test`,
      password: TEST_PASSWORD,
    });
    const admin = dashboardClient(t, await signInCookie(t, acme.admin.email));
    assert.equal((await admin.form('/account/security-policy', { requireSecondFactor: 'on' })).statusCode, 303);
    const [policy] = await audit(acme, 'companies.security_policy');
    assert.deepEqual(policy?.details, { requireSecondFactor: true });

    const cookie = await signInCookie(t, member.email);
    const m = dashboardClient(t, cookie);
    for (const url of ['/dashboard', '/reports', '/account', '/settings/api-keys']) {
      const res = await m.page(url);
      assert.equal(res.statusCode, 303, url);
      assert.equal(res.headers.location, '/account/second-factor', url);
    }
    // Forms take the CSRF token of the one page this member may open.
    const csrf = /name="_csrf" value="([0-9a-f]+)"/.exec((await m.page('/account/second-factor')).body)?.[1] ?? '';
    const form = (url: string, fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url,
        headers: { host: SITE, cookie, 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
      });
    const post = await form('/products', { name: 'Sneaky' });
    assert.equal(post.statusCode, 403);
    assert.match(post.body, /requires a second factor/);
    const api = await t.app.inject({ url: '/api/settings/api-keys', headers: { host: SITE, cookie } });
    assert.equal(api.statusCode, 403);
    assert.match(api.json().detail, /requires a second factor/);
    const setup = await m.page('/account/second-factor');
    assert.equal(setup.statusCode, 200);
    assert.match(setup.body, /requires a second factor\. Set it up to continue/);

    const started = await form('/account/second-factor/start', { password: TEST_PASSWORD });
    assert.equal(started.statusCode, 200);
    const secret = secretOf(started.body);
    assert.equal((await form('/account/second-factor/confirm', { code: codeAt(secret) })).statusCode, 200);
    assert.equal((await m.page('/dashboard')).statusCode, 200);
    const off = await m.form('/account/second-factor/disable', { password: TEST_PASSWORD, code: codeAt(secret, 1) });
    assert.equal(off.statusCode, 403);
    assert.match(off.body, /requires a second factor/);
  });
});
