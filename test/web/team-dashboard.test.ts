import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { auditLog, invitations, sessions, users } from '../../src/db/schema/index.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { csrfOf, dashboardClient } from '../helpers/dashboard.js';
import { TEST_PASSWORD } from '../helpers/factories.js';
import { makeMember } from '../helpers/team.js';

let t: TestApp;
let acme: Tenant;
let other: Tenant;
let admin: ReturnType<typeof dashboardClient>;

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  other = await makeTenant(t.database.db);
  admin = dashboardClient(t, await signInCookie(t, acme.admin.email));
});
after(() => t.close());

const linkOf = (body: string): string => /id="invite-link"[^>]*value="([^"]+)"/.exec(body)?.[1] ?? '';
const pathOf = (link: string): string => new URL(link).pathname;
const open = (path: string, cookie = '') => t.app.inject({ url: path, headers: { host: SITE, cookie } });
const cookieOf = (res: { headers: Record<string, unknown> }): string => String(res.headers['set-cookie']).split(';')[0] ?? '';
const userCount = async () => Number((await t.database.db.select({ n: sql<number>`count(*)::int` }).from(users))[0]?.n);

async function accept(path: string, password: string) {
  const page = await open(path);
  const post = await t.app.inject({
    method: 'POST',
    url: path,
    headers: { host: SITE, cookie: cookieOf(page), 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'InviteeBrowser/2.0' },
    payload: new URLSearchParams({ _csrf: csrfOf(page.body), password }).toString(),
  });
  return { page, post };
}

describe('team page', () => {
  it('invites with mail off: shows the link once, says mail is off; the person joins once and lands signed in', async () => {
    const res = await admin.form('/settings/team/invitations', { email: 'new.viewer@example.test', role: 'viewer' });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(res.body, /id="mail-off"/);
    const link = linkOf(res.body);
    assert.match(link, /^http:\/\/localhost:3000\/invite\/[0-9a-f]{64}$/);
    const list = await admin.page('/settings/team');
    assert.match(list.body, /data-invitation="new.viewer@example.test"/);
    assert.ok(!list.body.includes(pathOf(link)), 'the link is shown only once');

    const { page, post } = await accept(pathOf(link), TEST_PASSWORD);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(`Join ${acme.company.name}`));
    assert.match(page.body, /id="invited-role">Viewer</);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(post.statusCode, 303);
    assert.equal(post.headers.location, '/dashboard');
    const dash = await open('/dashboard', cookieOf(post));
    assert.equal(dash.statusCode, 200);
    assert.match(dash.body, /new\.viewer@example\.test<\/a> <span class="role">Viewer<\/span>/);
    // The new session records where it was started from, as one started by signing in does.
    const [joined] = (
      (await t.database.db.execute(
        sql`select s.address, s.user_agent as "userAgent" from sessions s join users u on u.id = s.user_id where u.email = 'new.viewer@example.test'`,
      )) as unknown as { rows: { address: string | null; userAgent: string | null }[] }
    ).rows;
    assert.equal(joined?.userAgent, 'InviteeBrowser/2.0');
    assert.ok(joined?.address, 'the address bucket is recorded');

    const before = await userCount();
    const again = await accept(pathOf(link), TEST_PASSWORD);
    assert.equal(again.page.statusCode, 410);
    assert.match(again.page.body, /data-state="accepted"/);
    assert.ok(!again.page.body.includes(acme.company.name), 'a used link names no company');
    assert.equal(await userCount(), before);
  });

  it('answers 404 for an unknown link and 410 for a revoked one, creating nothing', async () => {
    assert.equal((await open(`/invite/${'a'.repeat(64)}`)).statusCode, 404);
    assert.equal((await open('/invite/whatever')).statusCode, 404);
    const res = await admin.form('/settings/team/invitations', { email: 'revoke.me@example.test', role: 'psirt' });
    const link = linkOf(res.body);
    const [inv] = await t.database.db.select().from(invitations).where(eq(invitations.email, 'revoke.me@example.test'));
    const revoked = await admin.form(`/settings/team/invitations/${inv?.id}/revoke`, {});
    assert.equal(revoked.statusCode, 303);
    const before = await userCount();
    const { page } = await accept(pathOf(link), TEST_PASSWORD);
    assert.equal(page.statusCode, 410);
    assert.match(page.body, /withdrawn/);
    assert.equal(await userCount(), before);
  });

  it("answers an address with another company's account exactly as a fresh one; only the link's holder learns it (issue 32, finding 5)", async () => {
    // The answer's shape with the address taken out: a fresh address and another company's administrator.
    // (The pending list differs: the second answer lists both invitations.)
    const shape = (body: string, email: string) =>
      (body.split('<h2>Pending invitations</h2>')[0] ?? '')
        .replaceAll(email, 'ADDRESS')
        .replace(/[0-9a-f]{64}/g, 'TOKEN')
        .replace(/[0-9a-f-]{36}/g, 'ID')
        .replace(/\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?Z?)?/g, 'TIME')
        .replace(/name="_csrf" value="[0-9a-f]+"/g, 'CSRF');
    const fresh = await admin.form('/settings/team/invitations', { email: 'fresh.address@example.test', role: 'viewer' });
    const taken = await admin.form('/settings/team/invitations', { email: other.admin.email, role: 'viewer' });
    assert.equal(taken.statusCode, fresh.statusCode);
    assert.equal(taken.statusCode, 201, taken.body);
    assert.doesNotMatch(taken.body, /Cradle account|another company/);
    const list = (await admin.page('/settings/team')).body;
    assert.match(fresh.body, /id="invite-link"/);
    assert.equal(shape(taken.body, other.admin.email), shape(fresh.body, 'fresh.address@example.test'));
    assert.match(list, new RegExp(`data-invitation="${other.admin.email}"`));

    // The holder of the link is told, and nothing is created or changed.
    const before = await userCount();
    const { page, post } = await accept(pathOf(linkOf(taken.body)), TEST_PASSWORD);
    assert.equal(page.statusCode, 409);
    assert.match(page.body, /data-state="taken"/);
    assert.match(page.body, /Sign in with your existing account/);
    assert.ok(!page.body.includes('name="password"'), 'no form to choose a password');
    assert.equal(post.statusCode, 409);
    assert.equal(await userCount(), before);
    const [still] = await t.database.db.select().from(users).where(eq(users.email, other.admin.email));
    assert.equal(still?.companyId, other.company.id);
  });

  it('re-renders the form with the message for a member of this team and a bad address, storing nothing', async () => {
    const before = (await t.database.db.select().from(invitations)).length;
    const member = await admin.form('/settings/team/invitations', { email: acme.admin.email.toUpperCase(), role: 'viewer' });
    assert.equal(member.statusCode, 409);
    assert.match(member.body, /already a member of this team/);
    assert.match(member.body, new RegExp(`value="${acme.admin.email.toUpperCase()}"`));
    const bad = await admin.form('/settings/team/invitations', { email: '<script>@x', role: 'viewer' });
    assert.equal(bad.statusCode, 400);
    assert.ok(!bad.body.includes('<script>@x'), 'the typed value is escaped');
    assert.equal((await t.database.db.select().from(invitations)).length, before);
  });

  it('refuses a bad password on the accept form with the message, keeping the link usable', async () => {
    const res = await admin.form('/settings/team/invitations', { email: 'short.pw@example.test', role: 'psirt' });
    const path = pathOf(linkOf(res.body));
    const { post } = await accept(path, 'short');
    assert.equal(post.statusCode, 400);
    assert.match(post.body, /at least 15 characters/);
    const ok = await accept(path, TEST_PASSWORD);
    assert.equal(ok.post.statusCode, 303);
  });

  it('changes a role and removes a member, ending their sessions; refuses the last administrator', async () => {
    const m = await makeMember(t.database.db, acme.company.id, acme.admin.id, 'psirt');
    const theirs = await signInCookie(t, m.email);
    assert.equal((await open('/reports', theirs)).statusCode, 200);
    const changed = await admin.form(`/settings/team/members/${m.id}/role`, { role: 'viewer' });
    assert.equal(changed.statusCode, 303);
    assert.equal((await open('/reports', theirs)).statusCode, 303, 'their session ended');
    assert.equal((await t.database.db.select().from(users).where(eq(users.id, m.id)))[0]?.role, 'viewer');
    const removed = await admin.form(`/settings/team/members/${m.id}/remove`, {});
    assert.equal(removed.statusCode, 303);
    assert.equal((await t.database.db.select().from(users).where(eq(users.id, m.id))).length, 0);

    const last = await admin.form(`/settings/team/members/${acme.admin.id}/role`, { role: 'viewer' });
    assert.equal(last.statusCode, 409);
    assert.match(last.body, /at least one administrator/);
    const self = await admin.form(`/settings/team/members/${acme.admin.id}/remove`, {});
    assert.equal(self.statusCode, 409);
    assert.equal((await t.database.db.select().from(users).where(eq(users.id, acme.admin.id)))[0]?.role, 'admin');
    assert.ok((await t.database.db.select().from(sessions).where(eq(sessions.userId, acme.admin.id))).length > 0);
  });

  it("answers 404 for another company's member and invitation", async () => {
    const res = await admin.form(`/settings/team/members/${other.admin.id}/remove`, {});
    assert.equal(res.statusCode, 404);
    assert.equal((await t.database.db.select().from(users).where(eq(users.id, other.admin.id))).length, 1);
    const audit = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, other.company.id), eq(auditLog.action, 'team.remove')));
    assert.equal(audit.length, 0);
  });
});
