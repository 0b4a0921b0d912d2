import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { notFound, validation } from '../../kernel/errors.js';
import { recordAudit } from '../audit/record-audit.js';
import { endOtherSessions, type SessionView } from '../sessions/sessions.js';
import { throttledCheck } from '../sessions/sign-in-throttle.js';
import { hashNewPassword, verifyPassword } from './password.js';

/**
 * Changes the signed-in person's password: the current one first (throttled like sign-in, so a
 * stolen session cannot guess it), the new one under the policy, then in one transaction the new
 * hash, every other session of the person ended, and the audit row (no password in it).
 * Returns how many other sessions ended.
 */
export async function changePassword(
  db: Db,
  ctx: Context,
  s: SessionView,
  input: { currentPassword: string; newPassword: string },
  address: string,
): Promise<number> {
  const mine = and(eq(users.id, s.user.id), eq(users.companyId, s.company.id));
  const [row] = await db.select({ hash: users.passwordHash }).from(users).where(mine).limit(1);
  if (!row) throw notFound('user');
  if (!(await throttledCheck(db, s.user.email.toLowerCase(), address, () => verifyPassword(input.currentPassword.slice(0, 1024), row.hash)))) {
    await recordAudit(db, ctx, {
      companyId: s.company.id,
      action: 'account.password_changed',
      targetType: 'user',
      targetId: s.user.id,
      outcome: 'failure',
      details: { reason: 'wrong current password' },
    });
    throw validation('currentPassword: wrong', [{ path: 'currentPassword', message: 'the current password is wrong' }]);
  }
  const hash = await hashNewPassword(input.newPassword, { email: s.user.email, companyName: s.company.name, companySlug: s.company.slug }, 'newPassword');
  return db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash: hash }).where(mine);
    const ended = await endOtherSessions(tx, s.company.id, s.user.id, s.tokenDigest);
    await recordAudit(tx, ctx, {
      companyId: s.company.id,
      action: 'account.password_changed',
      targetType: 'user',
      targetId: s.user.id,
      details: { otherSessionsEnded: ended },
    });
    return ended;
  });
}
