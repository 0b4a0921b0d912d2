import { and, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode, conflict, validation } from '../../kernel/errors.js';
import { openSecret, sealSecret } from '../../kernel/secret-box.js';
import { recordAudit } from '../audit/record-audit.js';
import { throttledCheck } from '../sessions/sign-in-throttle.js';
import { queueAccountNotice } from './account-notice.js';
import { verifyPassword } from './password.js';
import { deleteRecoveryCodes, replaceRecoveryCodes, useRecoveryCode } from './recovery-codes.js';
import { enrolmentOf, newTotpSecret, totpStep } from './totp.js';

/** The signed-in person an account verb acts for (from their session). */
export type Person = { id: string; companyId: string; email: string };
export type Enrolment = { secret: string; uri: string; qrSvg: string };
/** Where a request to change the second factor comes from (the sign-in throttle's address bucket) and whether mail is on (the notice). */
export type AccountEnv = { address: string; mail: boolean };
export type SecondFactorCheck =
  { ok: true; method: 'totp' } | { ok: true; method: 'recovery_code'; remaining: number } | { ok: false; reason: 'wrong code' | 'replayed code' };

// The seed is sealed bound to its user, so a sealed value copied onto another row does not open.
const aadOf = (userId: string): string => `users.totp_secret:${userId}`;

async function secretsOf(db: Executor, p: Person) {
  const [row] = await db
    .select({ secret: users.totpSecret, pending: users.totpPendingSecret, passwordHash: users.passwordHash })
    .from(users)
    .where(and(eq(users.id, p.id), eq(users.companyId, p.companyId)))
    .limit(1);
  if (!row) throw new AppError(ErrorCode.NOT_FOUND, 'user not found');
  return row;
}

/**
 * Checks a TOTP code or a recovery code for a user with a second factor. A TOTP code is taken
 * only for a time step later than the last accepted one (one conditional update: two requests with
 * the same code cannot both pass); a recovery code is spent by the same kind of update.
 */
export async function checkSecondFactor(db: Executor, p: Person, code: string, now: Date): Promise<SecondFactorCheck> {
  const { secret } = await secretsOf(db, p);
  if (!secret) return { ok: false, reason: 'wrong code' };
  const step = totpStep(openSecret(secret, aadOf(p.id)), code, now);
  if (step !== undefined) {
    const taken = await db
      .update(users)
      .set({ totpLastStep: step })
      .where(and(eq(users.id, p.id), eq(users.companyId, p.companyId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
      .returning({ id: users.id });
    return taken.length === 1 ? { ok: true, method: 'totp' } : { ok: false, reason: 'replayed code' };
  }
  const remaining = await useRecoveryCode(db, p.id, code, now);
  return remaining === undefined ? { ok: false, reason: 'wrong code' } : { ok: true, method: 'recovery_code', remaining };
}

/**
 * The current password, checked in the sign-in throttle (so a stolen session cannot guess it): a
 * session alone may not change how its account signs in (issue 32, finding 2; docs/access.md).
 */
async function requireCurrentPassword(db: Db, p: Person, passwordHash: string, password: string, address: string): Promise<void> {
  if (!(await throttledCheck(db, p.email.toLowerCase(), address, () => verifyPassword(password, passwordHash)))) {
    throw validation('password: wrong', [{ path: 'password', message: 'the current password is wrong' }]);
  }
}

/**
 * Starts enrolment with the current password: a new seed, kept sealed as pending until a code from
 * the app confirms it. The seed is returned to this request only; a pending enrolment is never shown
 * again (another holder of the session could read it and later pass the second factor).
 */
export async function startTotpEnrolment(db: Db, p: Person, password: string, address: string): Promise<Enrolment> {
  const { secret: active, passwordHash } = await secretsOf(db, p);
  if (active) throw conflict('a second factor is already on; turn it off first to set up another app');
  await requireCurrentPassword(db, p, passwordHash, password, address);
  const secret = newTotpSecret();
  await db
    .update(users)
    .set({ totpPendingSecret: sealSecret(secret, aadOf(p.id)) })
    .where(and(eq(users.id, p.id), eq(users.companyId, p.companyId)));
  return { secret, ...enrolmentOf(secret, p.email) };
}

/** Whether an enrolment was started and not yet confirmed (its seed is not shown again). */
export async function hasPendingEnrolment(db: Db, p: Person): Promise<boolean> {
  const { secret, pending } = await secretsOf(db, p);
  return !secret && pending !== null;
}

/** Confirms enrolment with a current code; turns the second factor on; returns the recovery codes (shown once). */
export async function confirmTotpEnrolment(db: Db, ctx: Context, p: Person, code: string, env: AccountEnv): Promise<string[]> {
  const now = new Date();
  const { secret, pending } = await secretsOf(db, p);
  if (secret) throw conflict('a second factor is already on');
  if (!pending) throw conflict('the set-up expired; start again');
  const step = totpStep(openSecret(pending, aadOf(p.id)), code, now);
  if (step === undefined)
    throw validation('code: the code is wrong', [
      { path: 'code', message: "the code is wrong; enter the 6 digits the app shows now (check the phone's clock if it keeps failing)" },
    ]);
  return db.transaction(async (tx) => {
    const done = await tx
      .update(users)
      .set({ totpSecret: pending, totpPendingSecret: null, totpEnabledAt: now, totpLastStep: step })
      .where(and(eq(users.id, p.id), eq(users.companyId, p.companyId), isNull(users.totpSecret), eq(users.totpPendingSecret, pending)))
      .returning({ id: users.id });
    if (done.length === 0) throw conflict('the set-up changed meanwhile; start again');
    const codes = await replaceRecoveryCodes(tx, p.id, p.companyId, now);
    await recordAudit(tx, ctx, {
      companyId: p.companyId,
      action: 'account.second_factor_enabled',
      targetType: 'user',
      targetId: p.id,
      details: { method: 'totp', recoveryCodes: codes.length },
      at: now,
    });
    await queueAccountNotice(tx, { ...p, mail: env.mail }, 'second_factor_enabled', now);
    return codes;
  });
}

/** Turns the second factor off: the current password and a code (or a recovery code), both throttled like sign-in. */
export async function disableSecondFactor(
  db: Db,
  ctx: Context,
  p: Person,
  input: { password: string; code: string; required: boolean },
  env: AccountEnv,
): Promise<void> {
  if (input.required) throw new AppError(ErrorCode.FORBIDDEN, 'your company requires a second factor; an administrator can lift the requirement');
  const { secret, passwordHash } = await secretsOf(db, p);
  if (!secret) throw conflict('no second factor is on');
  let wrong: 'password' | 'code' | undefined;
  await throttledCheck(db, p.email.toLowerCase(), env.address, async () => {
    if (!(await verifyPassword(input.password, passwordHash))) wrong = 'password';
    else if (!(await checkSecondFactor(db, p, input.code, new Date())).ok) wrong = 'code';
    return wrong === undefined;
  });
  if (wrong) {
    await recordAudit(db, ctx, {
      companyId: p.companyId,
      action: 'account.second_factor_disabled',
      targetType: 'user',
      targetId: p.id,
      outcome: 'failure',
      details: { reason: `wrong ${wrong}` },
    });
    throw validation(`${wrong}: wrong`, [
      { path: wrong, message: wrong === 'password' ? 'the current password is wrong' : 'the code is wrong or was already used' },
    ]);
  }
  await db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ totpSecret: null, totpPendingSecret: null, totpEnabledAt: null, totpLastStep: null })
      .where(and(eq(users.id, p.id), eq(users.companyId, p.companyId)));
    await deleteRecoveryCodes(tx, p.id);
    await recordAudit(tx, ctx, { companyId: p.companyId, action: 'account.second_factor_disabled', targetType: 'user', targetId: p.id });
    await queueAccountNotice(tx, { ...p, mail: env.mail }, 'second_factor_disabled', new Date());
  });
}

/** New recovery codes (the old ones stop working); needs the current password. */
export async function regenerateRecoveryCodes(db: Db, ctx: Context, p: Person, password: string, env: AccountEnv): Promise<string[]> {
  const { secret, passwordHash } = await secretsOf(db, p);
  if (!secret) throw conflict('no second factor is on');
  await requireCurrentPassword(db, p, passwordHash, password, env.address);
  return db.transaction(async (tx) => {
    const now = new Date();
    const codes = await replaceRecoveryCodes(tx, p.id, p.companyId, now);
    await recordAudit(tx, ctx, {
      companyId: p.companyId,
      action: 'account.recovery_codes_regenerated',
      targetType: 'user',
      targetId: p.id,
      details: { recoveryCodes: codes.length },
    });
    await queueAccountNotice(tx, { ...p, mail: env.mail }, 'recovery_codes_regenerated', now);
    return codes;
  });
}
