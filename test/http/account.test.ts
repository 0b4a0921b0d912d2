import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, sessions, users } from '../../src/db/schema/index.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';
import { TEST_PASSWORD } from '../helpers/factories.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const NEW_PASSWORD = 'seven ravens sing at dawn';
const status = async (cookie: string) => (await t.app.inject({ url: '/account', headers: { host: SITE, cookie } })).statusCode;
const actions = async (tenant: Tenant, action: string) =>
  t.database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.companyId, tenant.company.id), eq(auditLog.action, action)));

describe('changing the password', () => {
  let acme: Tenant;
  before(async () => {
    acme = await makeTenant(t.database.db);
  });

  it('refuses a wrong current password and a weak new one on the re-rendered form, changing nothing', async () => {
    const cookie = await signInCookie(t, acme.admin.email);
    const c = dashboardClient(t, cookie);
    const [before] = await t.database.db.select({ h: users.passwordHash }).from(users).where(eq(users.id, acme.admin.id));
    const wrong = await c.form('/account/password', { currentPassword: 'not my password at all', newPassword: NEW_PASSWORD });
    assert.equal(wrong.statusCode, 400);
    assert.match(wrong.body, /the current password is wrong/);
    assert.ok(!wrong.body.includes(NEW_PASSWORD), 'a password is never echoed');
    const weak = await c.form('/account/password', { currentPassword: TEST_PASSWORD, newPassword: 'password12345678' });
    assert.equal(weak.statusCode, 400);
    assert.match(weak.body, /id="newPassword-error">New password: this password is on the list of common or breached passwords; choose another\./);
    const short = await c.form('/account/password', { currentPassword: TEST_PASSWORD, newPassword: 'too short' });
    assert.match(short.body, /at least 15 characters \(it has 9\)/);
    const [after] = await t.database.db.select({ h: users.passwordHash }).from(users).where(eq(users.id, acme.admin.id));
    assert.equal(after?.h, before?.h);
    assert.equal(await status(cookie), 200, 'the session lives on');
  });

  it('ends every other session, keeps this one, and the old password stops working', async () => {
    const other1 = await signInCookie(t, acme.admin.email);
    const other2 = await signInCookie(t, acme.admin.email);
    const mine = await signInCookie(t, acme.admin.email);
    const res = await dashboardClient(t, mine).form('/account/password', { currentPassword: TEST_PASSWORD, newPassword: NEW_PASSWORD });
    assert.equal(res.statusCode, 303);
    assert.match(String(res.headers.location), /^\/account\?changed=[3-9]$/);
    assert.equal(await status(mine), 200);
    assert.equal(await status(other1), 303);
    assert.equal(await status(other2), 303);
    const live = await t.database.db.select().from(sessions).where(eq(sessions.userId, acme.admin.id));
    assert.equal(live.length, 1);
    const old = await t.app.inject({
      method: 'POST',
      url: '/api/session',
      headers: { host: SITE, 'content-type': 'application/json' },
      payload: { email: acme.admin.email, password: TEST_PASSWORD },
      remoteAddress: '192.0.2.31',
    });
    assert.equal(old.statusCode, 401);
    await signInCookie(t, acme.admin.email, NEW_PASSWORD);
    const rows = await actions(acme, 'account.password_changed');
    const ok = rows.find((r) => r.outcome === 'success');
    assert.ok(ok && (ok.details as { otherSessionsEnded: number }).otherSessionsEnded >= 3);
    assert.ok(rows.some((r) => r.outcome === 'failure'));
    assert.ok(!JSON.stringify(rows).includes(NEW_PASSWORD) && !JSON.stringify(rows).includes(TEST_PASSWORD), 'no password in the audit log');
  });
});

describe('sessions on the account page', () => {
  let acme: Tenant;
  before(async () => {
    acme = await makeTenant(t.database.db);
  });

  it('lists the live sessions with address and browser, marks the current one, and shows no token', async () => {
    const first = await signInCookie(t, acme.admin.email);
    const mine = await signInCookie(t, acme.admin.email);
    const res = await t.app.inject({ url: '/account', headers: { host: SITE, cookie: mine } });
    assert.equal(res.statusCode, 200);
    assert.equal((res.body.match(/action="\/account\/sessions\/[0-9a-f-]{36}\/end"/g) ?? []).length, 2);
    assert.equal((res.body.match(/this session/g) ?? []).length, 1);
    assert.match(res.body, /<td>127\.0\.0\.1<\/td>/);
    assert.match(res.body, /lightMyRequest/);
    for (const c of [first, mine]) assert.ok(!res.body.includes(c.split('=')[1] ?? '-'), 'no session token on the page');
    assert.match(res.body, /<a href="\/account" [^>]*aria-current="page">/);
  });

  it("ends one session by its id, refuses another person's session as not found", async () => {
    const other = await signInCookie(t, acme.admin.email);
    const mine = await signInCookie(t, acme.admin.email);
    const [row] = await t.database.db
      .select({ id: sessions.id })
      .from(sessions)
      .where(eq(sessions.tokenDigest, (await import('../../src/kernel/ids.js')).sha256Hex(other.split('=')[1] ?? '')));
    assert.ok(row);
    const stranger = await makeTenant(t.database.db);
    const strangerCookie = await signInCookie(t, stranger.admin.email);
    const foreign = await dashboardClient(t, strangerCookie).form(`/account/sessions/${row.id}/end`, {});
    assert.equal(foreign.statusCode, 404);
    assert.equal(await status(other), 200);
    const res = await dashboardClient(t, mine).form(`/account/sessions/${row.id}/end`, {});
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/account?ended=1');
    assert.equal(await status(other), 303);
    assert.equal(await status(mine), 200);
    const rows = await actions(acme, 'account.session_ended');
    assert.deepEqual(
      rows.map((r) => r.details),
      [{ sessionId: row.id, current: false }],
    );
  });

  it('signs out everywhere: every cookie of the person stops working, this one too', async () => {
    const cookies = [await signInCookie(t, acme.admin.email), await signInCookie(t, acme.admin.email), await signInCookie(t, acme.admin.email)];
    const res = await dashboardClient(t, cookies[0] ?? '').form('/account/sessions/end-all', {});
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/login');
    assert.match(String(res.headers['set-cookie']), /^cradle_session=; .*Max-Age=0/);
    for (const c of cookies) assert.equal(await status(c), 303);
    const left = await t.database.db.select().from(sessions).where(eq(sessions.userId, acme.admin.id));
    assert.equal(left.length, 0);
    const [row] = await actions(acme, 'account.signed_out_everywhere');
    assert.ok(((row?.details as { sessionsEnded: number }).sessionsEnded ?? 0) >= 3);
  });
});
