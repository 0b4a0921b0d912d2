import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { auditLog, invitations, mailMessages, sessions, users } from '../../../src/db/schema/index.js';
import type { Context } from '../../../src/kernel/context.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { sha256Hex } from '../../../src/kernel/ids.js';
import { randomUUID } from 'node:crypto';
import { fanOutMail } from '../../../src/modules/mail/fan-out-mail.js';
import { startSession } from '../../../src/modules/sessions/sessions.js';
import { acceptInvitation, lookupInvitation } from '../../../src/modules/team/accept-invitation.js';
import { inviteMember, listPendingInvitations, resendInvitation, revokeInvitation } from '../../../src/modules/team/invitations.js';
import { changeMemberRole, listMembers, removeMember } from '../../../src/modules/team/members.js';
import { verifyPassword } from '../../../src/modules/users/password.js';
import { resetPassword } from '../../../src/modules/users/reset-password.js';
import { makeTenant, type Tenant } from '../../helpers/access.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { TEST_PASSWORD } from '../../helpers/factories.js';
import { INVITE_ENV, makeMember, tokenOf } from '../../helpers/team.js';

let database: TestDatabase;
let a: Tenant;
let b: Tenant;
const publicCtx: Context = { actor: { type: 'public' } };
const asAdmin = (t: Tenant): Context => ({ actor: { type: 'user', id: t.admin.id } });

before(async () => {
  database = await createTestDatabase();
  a = await makeTenant(database.db);
  b = await makeTenant(database.db);
});
after(async () => {
  await database?.drop();
});

const count = async (table: typeof users | typeof invitations | typeof mailMessages) =>
  Number((await database.db.select({ n: sql<number>`count(*)::int` }).from(table))[0]?.n);
const sessionsOf = async (userId: string) => (await database.db.select().from(sessions).where(eq(sessions.userId, userId))).length;

describe('invitations', () => {
  it('joins through the link once: user with the invited role, signed in; the second use creates nothing', async () => {
    const { link, invitation, mailQueued } = await inviteMember(
      database.db,
      asAdmin(a),
      a.company.id,
      a.admin.id,
      { email: ' Viewer.One@Example.test ', role: 'viewer' },
      INVITE_ENV,
    );
    assert.equal(mailQueued, false);
    assert.match(link, /^http:\/\/localhost:3000\/invite\/[0-9a-f]{64}$/);
    assert.equal(invitation.email, 'Viewer.One@Example.test');
    const [row] = await database.db.select().from(invitations).where(eq(invitations.id, invitation.id));
    // Only the digest is stored.
    assert.equal(row?.tokenDigest, sha256Hex(tokenOf(link)));
    assert.ok(!JSON.stringify(row).includes(tokenOf(link)));
    const seen = await lookupInvitation(database.db, tokenOf(link));
    assert.equal(seen.state, 'pending');
    assert.equal('companyName' in seen ? seen.companyName : undefined, a.company.name);

    const joined = await acceptInvitation(database.db, publicCtx, tokenOf(link), { password: TEST_PASSWORD });
    const [u] = await database.db.select().from(users).where(eq(users.id, joined.userId));
    assert.equal(u?.role, 'viewer');
    assert.equal(u?.companyId, a.company.id);
    assert.equal(u?.email, 'Viewer.One@Example.test');
    assert.ok(await verifyPassword(TEST_PASSWORD, u?.passwordHash ?? ''));
    assert.equal(await sessionsOf(joined.userId), 1);
    assert.match(joined.session.token, /^[0-9a-f]{64}$/);

    const users0 = await count(users);
    await assert.rejects(
      acceptInvitation(database.db, publicCtx, tokenOf(link), { password: TEST_PASSWORD }),
      (e: { state?: string }) => e.state === 'accepted',
    );
    assert.equal(await count(users), users0);
    assert.equal((await lookupInvitation(database.db, tokenOf(link))).state, 'accepted');
    const audit = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, a.company.id), sql`${auditLog.targetId} in (${invitation.id}, ${joined.userId})`));
    assert.deepEqual(audit.map((r) => r.action).sort(), ['session.sign_in', 'team.invite', 'users.create']);
    assert.ok(!JSON.stringify(audit).includes(tokenOf(link)), 'no token in the audit log');
  });

  it('refuses an expired link and a withdrawn link with their own state, creating nothing', async () => {
    const now = new Date();
    const expired = await inviteMember(
      database.db,
      asAdmin(a),
      a.company.id,
      a.admin.id,
      { email: 'late@example.test', role: 'psirt' },
      { ...INVITE_ENV, now: new Date(now.getTime() - 8 * 86_400_000) },
    );
    const revoked = await inviteMember(database.db, asAdmin(a), a.company.id, a.admin.id, { email: 'withdrawn@example.test', role: 'psirt' }, INVITE_ENV);
    await revokeInvitation(database.db, asAdmin(a), a.company.id, revoked.invitation.id);
    const users0 = await count(users);
    await assert.rejects(
      acceptInvitation(database.db, publicCtx, tokenOf(expired.link), { password: TEST_PASSWORD }),
      (e: { state?: string }) => e.state === 'expired',
    );
    await assert.rejects(
      acceptInvitation(database.db, publicCtx, tokenOf(revoked.link), { password: TEST_PASSWORD }),
      (e: { state?: string }) => e.state === 'revoked',
    );
    await assert.rejects(
      acceptInvitation(database.db, publicCtx, 'f'.repeat(64), { password: TEST_PASSWORD }),
      (e: { state?: string }) => e.state === 'unknown',
    );
    await assert.rejects(
      acceptInvitation(database.db, publicCtx, 'not-a-token', { password: TEST_PASSWORD }),
      (e: { state?: string }) => e.state === 'unknown',
    );
    assert.equal(await count(users), users0);
    // An expired invitation may be replaced by a new one; its old link stays dead.
    const again = await inviteMember(database.db, asAdmin(a), a.company.id, a.admin.id, { email: 'late@example.test', role: 'viewer' }, INVITE_ENV);
    assert.notEqual(again.invitation.id, expired.invitation.id);
    assert.equal((await lookupInvitation(database.db, tokenOf(expired.link))).state, 'expired');
  });

  it('refuses a too-short password through the shared policy and keeps the link usable', async () => {
    const { link } = await inviteMember(database.db, asAdmin(a), a.company.id, a.admin.id, { email: 'short@example.test', role: 'viewer' }, INVITE_ENV);
    await assert.rejects(
      acceptInvitation(database.db, publicCtx, tokenOf(link), { password: 'short' }),
      (e: { code?: string; message?: string }) => e.code === 'VALIDATION' && /at least 15/.test(e.message ?? ''),
    );
    assert.equal((await lookupInvitation(database.db, tokenOf(link))).state, 'pending');
  });

  it('refuses a member of this company, a second pending invitation, a bad address and a bad role', async () => {
    const inv0 = await count(invitations);
    const refuse = (raw: unknown, re: RegExp) =>
      assert.rejects(inviteMember(database.db, asAdmin(a), a.company.id, a.admin.id, raw, INVITE_ENV), (e: Error) => re.test(e.message));
    await refuse({ email: a.admin.email.toUpperCase(), role: 'viewer' }, /already a member of this team/);
    await inviteMember(database.db, asAdmin(a), a.company.id, a.admin.id, { email: 'twice@example.test', role: 'viewer' }, INVITE_ENV);
    await refuse({ email: 'TWICE@example.test', role: 'psirt' }, /already invited/);
    await refuse({ email: 'not an address', role: 'viewer' }, /e-mail/);
    await refuse({ email: 'x@example.test', role: 'owner' }, /role/);
    assert.equal(await count(invitations), inv0 + 1);
  });

  it('sends again with a new link (the old one stops working) and queues the mail in the same transaction', async () => {
    const env = { ...INVITE_ENV, mail: true };
    const first = await inviteMember(database.db, asAdmin(a), a.company.id, a.admin.id, { email: 'resend@example.test', role: 'psirt' }, env);
    const second = await resendInvitation(database.db, asAdmin(a), a.company.id, first.invitation.id, env);
    assert.notEqual(second.link, first.link);
    assert.equal((await lookupInvitation(database.db, tokenOf(first.link))).state, 'unknown');
    assert.equal((await lookupInvitation(database.db, tokenOf(second.link))).state, 'pending');
    const mails = await database.db.select().from(mailMessages).where(eq(mailMessages.recipient, 'resend@example.test'));
    assert.deepEqual(
      mails.map((m) => [m.kind, m.data?.inviteUrl]).sort(),
      [
        ['team.invitation', first.link],
        ['team.invitation', second.link],
      ].sort(),
    );
  });

  it("answers not found for another company's invitation and leaves it alone", async () => {
    const theirs = await inviteMember(
      database.db,
      { actor: { type: 'user', id: b.admin.id } },
      b.company.id,
      b.admin.id,
      { email: 'b-invitee@example.test', role: 'viewer' },
      INVITE_ENV,
    );
    await assert.rejects(revokeInvitation(database.db, asAdmin(a), a.company.id, theirs.invitation.id), (e: { code?: string }) => e.code === 'NOT_FOUND');
    await assert.rejects(
      resendInvitation(database.db, asAdmin(a), a.company.id, theirs.invitation.id, INVITE_ENV),
      (e: { code?: string }) => e.code === 'NOT_FOUND',
    );
    assert.equal((await lookupInvitation(database.db, tokenOf(theirs.link))).state, 'pending');
    assert.ok(!(await listPendingInvitations(database.db, a.company.id)).some((i) => i.id === theirs.invitation.id));
  });
});

describe('members', () => {
  it('changes a role and ends all of that member’s sessions; audited', async () => {
    const m = await makeMember(database.db, a.company.id, a.admin.id, 'psirt');
    await startSession(database.db, m.id, a.company.id, new Date());
    assert.equal(await sessionsOf(m.id), 2);
    const r = await changeMemberRole(database.db, asAdmin(a), a.company.id, m.id, { role: 'viewer' });
    assert.deepEqual([r.from, r.to, r.sessionsEnded], ['psirt', 'viewer', 2]);
    assert.equal(await sessionsOf(m.id), 0);
    const members = await listMembers(database.db, a.company.id);
    assert.equal(members.find((x) => x.id === m.id)?.role, 'viewer');
    assert.ok(members.find((x) => x.id === m.id)?.lastSignInAt instanceof Date, 'joining counts as a sign-in');
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'team.role_change'), eq(auditLog.targetId, m.id)));
    assert.deepEqual(row?.details, { email: m.email, from: 'psirt', to: 'viewer', sessionsEnded: 2 });
  });

  it('removes a member: account and sessions gone; another company’s member is not found', async () => {
    const m = await makeMember(database.db, a.company.id, a.admin.id, 'viewer');
    await removeMember(database.db, asAdmin(a), a.company.id, m.id);
    assert.equal((await database.db.select().from(users).where(eq(users.id, m.id))).length, 0);
    assert.equal(await sessionsOf(m.id), 0);
    await assert.rejects(removeMember(database.db, asAdmin(a), a.company.id, b.admin.id), (e: { code?: string }) => e.code === 'NOT_FOUND');
    await assert.rejects(
      changeMemberRole(database.db, asAdmin(a), a.company.id, b.admin.id, { role: 'viewer' }),
      (e: { code?: string }) => e.code === 'NOT_FOUND',
    );
    assert.equal((await database.db.select().from(users).where(eq(users.id, b.admin.id)))[0]?.role, 'admin');
  });

  it('never leaves a company without an administrator, even when two demote each other at once', async () => {
    const t = await makeTenant(database.db);
    const ctx = { actor: { type: 'user', id: t.admin.id } } as const;
    await assert.rejects(removeMember(database.db, ctx, t.company.id, t.admin.id), /at least one administrator/);
    await assert.rejects(changeMemberRole(database.db, ctx, t.company.id, t.admin.id, { role: 'psirt' }), /at least one administrator/);
    const second = await makeMember(database.db, t.company.id, t.admin.id, 'admin');
    for (let round = 0; round < 3; round++) {
      const results = await Promise.allSettled([
        changeMemberRole(database.db, ctx, t.company.id, second.id, { role: 'viewer' }),
        changeMemberRole(database.db, { actor: { type: 'user', id: second.id } }, t.company.id, t.admin.id, { role: 'viewer' }),
      ]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, `round ${round}: exactly one demotion succeeds`);
      const admins = await database.db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.companyId, t.company.id), eq(users.role, 'admin')));
      assert.equal(admins.length, 1);
      // Restore two administrators for the next round.
      await changeMemberRole(database.db, operatorContext(), t.company.id, admins[0]?.id === t.admin.id ? second.id : t.admin.id, { role: 'admin' });
    }
    const removals = await Promise.allSettled([
      removeMember(database.db, ctx, t.company.id, second.id),
      removeMember(database.db, ctx, t.company.id, t.admin.id),
    ]);
    assert.equal(removals.filter((r) => r.status === 'fulfilled').length, 1);
    assert.equal(
      (
        await database.db
          .select()
          .from(users)
          .where(and(eq(users.companyId, t.company.id), eq(users.role, 'admin')))
      ).length,
      1,
    );
  });
});

describe('mail defaults by role', () => {
  it('sends a new report to administrators and PSIRT members by default, and nothing to viewers', async () => {
    const t = await makeTenant(database.db);
    const psirt = await makeMember(database.db, t.company.id, t.admin.id, 'psirt');
    const viewer = await makeMember(database.db, t.company.id, t.admin.id, 'viewer');
    const ev = { id: randomUUID(), companyId: t.company.id, type: 'vulnerability.reported', payload: { data: { submissionId: randomUUID() } } };
    await database.db.transaction((tx) => fanOutMail(tx, [ev], new Date()));
    const to = (await database.db.select().from(mailMessages).where(eq(mailMessages.companyId, t.company.id))).map((m) => m.recipient).sort();
    assert.deepEqual(to, [t.admin.email, psirt.email].sort());
    assert.ok(!to.includes(viewer.email));
  });
});

describe('operator password reset', () => {
  it('sets the new password through the shared policy, ends every session, and audits as operator without the password', async () => {
    const m = await makeMember(database.db, a.company.id, a.admin.id, 'psirt');
    await assert.rejects(resetPassword(database.db, operatorContext(), { email: m.email, password: 'short' }), /at least 15/);
    await assert.rejects(resetPassword(database.db, operatorContext(), { email: 'nobody@example.test', password: 'long enough password' }), /not found/);
    const r = await resetPassword(database.db, operatorContext(), { email: m.email.toUpperCase(), password: 'a brand new passphrase' });
    assert.equal(r.sessionsEnded, 1);
    assert.equal(await sessionsOf(m.id), 0);
    const [u] = await database.db.select().from(users).where(eq(users.id, m.id));
    assert.ok(await verifyPassword('a brand new passphrase', u?.passwordHash ?? ''));
    const [row] = await database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'users.password_reset'), eq(auditLog.targetId, m.id)));
    assert.equal(row?.actorType, 'operator');
    assert.ok(!JSON.stringify(row).includes('brand new'));
  });
});
