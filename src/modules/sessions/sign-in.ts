import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { dummyPasswordHash, verifyPassword } from '../users/password.js';
import { clearSignInFailures, reserveSignInAttempt } from './sign-in-throttle.js';
import { pruneSessions, startSession } from './sessions.js';

export const SignInInput = z.object({
  email: z.string().trim().min(1, 'e-mail must not be empty').max(254),
  password: z.string().min(1, 'password must not be empty').max(1024),
});

export type SignInResult = { token: string; csrfToken: string; expiresAt: Date; userId: string; companyId: string };

const BAD_CREDENTIALS = 'e-mail address or password is wrong';

/**
 * Dashboard sign-in. `addressBucket` is the client's throttle bucket. Unknown e-mail and wrong
 * password give the same answer, and an unknown e-mail still runs one scrypt so the two take about
 * the same time. Sign-ins of known accounts, successful or not, go to that company's audit log
 * (never the password); attempts on unknown e-mails have no company and go to the service log.
 */
export async function signIn(db: Db, ctx: Context, raw: unknown, addressBucket: string): Promise<SignInResult> {
  const input = parseInput(SignInInput, raw);
  const account = input.email.toLowerCase();
  const now = new Date();
  const [user] = await db
    .select({ id: users.id, companyId: users.companyId, passwordHash: users.passwordHash })
    .from(users)
    .where(eq(sql`lower(${users.email})`, account))
    .limit(1);
  const verdict = await reserveSignInAttempt(db, account, addressBucket, now);
  if (!verdict.allowed) {
    if (user) {
      await recordAudit(db, ctx, { companyId: user.companyId, action: 'session.sign_in', targetType: 'user', targetId: user.id, outcome: 'denied', details: { reason: 'throttled' }, at: now });
    }
    throw new AppError(ErrorCode.RATE_LIMITED, 'too many failed sign-ins; wait before trying again', { retryAfterSeconds: verdict.retryAfterSeconds });
  }
  const ok = await verifyPassword(input.password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !ok) {
    // The reserved attempt stays as the failure.
    if (user) {
      await recordAudit(db, ctx, { companyId: user.companyId, action: 'session.sign_in', targetType: 'user', targetId: user.id, outcome: 'failure', details: { reason: 'bad password' }, at: now });
    }
    throw new AppError(ErrorCode.UNAUTHENTICATED, BAD_CREDENTIALS);
  }
  return db.transaction(async (tx) => {
    await clearSignInFailures(tx, account, addressBucket);
    if (Math.random() < 0.05) await pruneSessions(tx, now);
    const s = await startSession(tx, user.id, user.companyId, now);
    await recordAudit(tx, { ...ctx, actor: { type: 'user', id: user.id } }, { companyId: user.companyId, action: 'session.sign_in', targetType: 'user', targetId: user.id, at: now });
    return { ...s, userId: user.id, companyId: user.companyId };
  });
}
