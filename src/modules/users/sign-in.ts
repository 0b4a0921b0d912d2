import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { dummyPasswordHash, verifyPassword } from './password.js';
import { checkSecondFactor, type Person } from './second-factor.js';
import { countWrongCode, endPendingSignIn, findPendingSignIn, startPendingSignIn } from '../sessions/pending-sign-in.js';
import { clearSignInFailures, reserveSignInAttempt } from '../sessions/sign-in-throttle.js';
import { pruneSessions, startSession } from '../sessions/sessions.js';

export const SignInInput = z.object({
  email: z.string().trim().min(1, 'e-mail must not be empty').max(254),
  password: z.string().min(1, 'password must not be empty').max(1024),
  /** The second factor in the same request (JSON sign-in): a TOTP code or a recovery code. */
  totp: z.string().trim().max(64).optional(),
});

export type SessionStarted = { kind: 'session'; token: string; csrfToken: string; expiresAt: Date; userId: string; companyId: string };
export type SignInResult = SessionStarted | { kind: 'second-factor'; pendingToken: string };

const BAD_CREDENTIALS = 'e-mail address or password is wrong';
const CODE_NEEDED = 'this account signs in with a second factor: send the code from the authenticator app (or a recovery code) as "totp"';
const BAD_CODE = 'the second-factor code is wrong or was already used';

const audit = (db: Parameters<typeof recordAudit>[0], ctx: Context, p: Person, outcome: 'failure' | 'denied', details: Record<string, unknown>, at: Date) =>
  recordAudit(db, ctx, { companyId: p.companyId, action: 'session.sign_in', targetType: 'user', targetId: p.id, outcome, details, at });

function throttled(retryAfterSeconds: number): AppError {
  return new AppError(ErrorCode.RATE_LIMITED, 'too many failed sign-ins; wait before trying again', { retryAfterSeconds });
}

/** Both factors passed: the session, the throttle's failures of this account from this address cleared, audited. */
async function finishSignIn(
  db: Db,
  ctx: Context,
  p: Person,
  account: string,
  address: string,
  factor: Awaited<ReturnType<typeof checkSecondFactor>> | undefined,
  now: Date,
): Promise<SessionStarted> {
  return db.transaction(async (tx) => {
    await clearSignInFailures(tx, account, address);
    if (Math.random() < 0.05) await pruneSessions(tx, now);
    const s = await startSession(tx, p.id, p.companyId, now, { address, userAgent: ctx.userAgent });
    const userCtx = { ...ctx, actor: { type: 'user' as const, id: p.id } };
    const method = factor?.ok ? factor.method : 'none';
    await recordAudit(tx, userCtx, {
      companyId: p.companyId,
      action: 'session.sign_in',
      targetType: 'user',
      targetId: p.id,
      details: { secondFactor: method },
      at: now,
    });
    if (factor?.ok && factor.method === 'recovery_code') {
      await recordAudit(tx, userCtx, {
        companyId: p.companyId,
        action: 'account.recovery_code_used',
        targetType: 'user',
        targetId: p.id,
        details: { remaining: factor.remaining },
        at: now,
      });
    }
    return { kind: 'session', ...s, userId: p.id, companyId: p.companyId };
  });
}

/**
 * Dashboard sign-in. `addressBucket` is the client's throttle bucket. Unknown e-mail and wrong
 * password give the same answer, and an unknown e-mail still runs one scrypt so the two take about
 * the same time. Sign-ins of known accounts, successful or not, go to that company's audit log
 * (never the password); attempts on unknown e-mails have no company and go to the service log.
 *
 * An account with a second factor: with `secondStep: 'form'` a right password gives a pending
 * sign-in for the code page; with `'inline'` (JSON) the code must come in the same request as
 * `totp`. Either way the attempt reserved before the password stays counted as a failure until
 * the second factor passes, so password-and-code guesses spend the same throttle.
 */
export async function signIn(db: Db, ctx: Context, raw: unknown, addressBucket: string, secondStep: 'form' | 'inline' = 'inline'): Promise<SignInResult> {
  const input = parseInput(SignInInput, raw);
  const account = input.email.toLowerCase();
  const now = new Date();
  const [user] = await db
    .select({ id: users.id, companyId: users.companyId, email: users.email, passwordHash: users.passwordHash, totpEnabledAt: users.totpEnabledAt })
    .from(users)
    .where(eq(sql`lower(${users.email})`, account))
    .limit(1);
  const verdict = await reserveSignInAttempt(db, account, addressBucket, now);
  if (!verdict.allowed) {
    if (user) await audit(db, ctx, user, 'denied', { reason: 'throttled' }, now);
    throw throttled(verdict.retryAfterSeconds);
  }
  const ok = await verifyPassword(input.password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !ok) {
    // The reserved attempt stays as the failure.
    if (user) await audit(db, ctx, user, 'failure', { reason: 'bad password' }, now);
    throw new AppError(ErrorCode.UNAUTHENTICATED, BAD_CREDENTIALS);
  }
  if (user.totpEnabledAt === null) return finishSignIn(db, ctx, user, account, addressBucket, undefined, now);
  if (secondStep === 'form') return { kind: 'second-factor', pendingToken: await startPendingSignIn(db, user.id, user.companyId, now) };
  if (!input.totp) {
    await audit(db, ctx, user, 'failure', { reason: 'second factor missing' }, now);
    throw new AppError(ErrorCode.UNAUTHENTICATED, CODE_NEEDED);
  }
  const factor = await checkSecondFactor(db, user, input.totp, now);
  if (!factor.ok) {
    await audit(db, ctx, user, 'failure', { reason: factor.reason }, now);
    throw new AppError(ErrorCode.UNAUTHENTICATED, BAD_CODE);
  }
  return finishSignIn(db, ctx, user, account, addressBucket, factor, now);
}

export type SecondStepResult = SessionStarted | { kind: 'expired' } | { kind: 'wrong'; reason: 'wrong code' | 'replayed code'; triesLeft: number };

/**
 * The code page's step: the pending sign-in's token and a code. Each code reserves an attempt in
 * the sign-in throttle first (so codes cannot be guessed faster than passwords), and a pending
 * sign-in ends after 5 wrong codes or 5 minutes: then the password is asked again.
 */
export async function completeSecondFactor(db: Db, ctx: Context, input: { pending: string; code: string }, addressBucket: string): Promise<SecondStepResult> {
  const now = new Date();
  const pending = await findPendingSignIn(db, input.pending, now);
  if (!pending) return { kind: 'expired' };
  const p: Person = { id: pending.userId, companyId: pending.companyId, email: pending.email };
  const account = pending.email.toLowerCase();
  const verdict = await reserveSignInAttempt(db, account, addressBucket, now);
  if (!verdict.allowed) {
    await audit(db, ctx, p, 'denied', { reason: 'throttled', step: 'second factor' }, now);
    throw throttled(verdict.retryAfterSeconds);
  }
  const factor = await checkSecondFactor(db, p, input.code.trim().slice(0, 64), now);
  if (!factor.ok) {
    await audit(db, ctx, p, 'failure', { reason: factor.reason, step: 'second factor' }, now);
    return { kind: 'wrong', reason: factor.reason, triesLeft: await countWrongCode(db, pending) };
  }
  if (!(await endPendingSignIn(db, pending))) return { kind: 'expired' };
  return finishSignIn(db, ctx, p, account, addressBucket, factor, now);
}
