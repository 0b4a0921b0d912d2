import { and, count, eq, gt, lt } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { lockFor } from '../../db/advisory-lock.js';
import { signInFailures } from '../../db/schema/index.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';

/**
 * Failed sign-in throttle (docs/access.md "Sign-in throttling"). Three sliding 15-minute counts of
 * failures; an attempt is refused before the password is checked when one is full:
 * - one account from one address: 5 (guessing one password from one place);
 * - one address over all accounts: 50 (credential stuffing from one place);
 * - one account from all addresses: 50 (a distributed guess at one account).
 * Refused attempts are not counted, so a lock always lifts within 15 minutes of the last counted
 * failure, and a victim signing in from their own address is only ever held up by the third count,
 * which takes an attacker 50 failures from several addresses per 15 minutes to keep full.
 */
export const THROTTLE = { windowMs: 15 * 60_000, perAccountAddress: 5, perAddress: 50, perAccount: 50 } as const;

export type ThrottleVerdict = { allowed: true; reservation: number } | { allowed: false; retryAfterSeconds: number };

async function countSince(db: Executor, where: ReturnType<typeof and>): Promise<number> {
  const [row] = await db.select({ n: count() }).from(signInFailures).where(where);
  return Number(row?.n ?? 0);
}

/**
 * Reserves one attempt before the password is checked: under locks on the account and the address
 * (taken in that order by everyone, so no two attempts wait on each other crosswise), the counts are
 * read and, when none is full, a failure row is written at once and committed. The attempt counts
 * as a failure from that moment; a correct password removes the row (`settleSignInAttempt`). Before,
 * the count was read and the failure written after scrypt, so 40 parallel guesses all reached the
 * hash (issue 24). A process that dies mid-attempt leaves a counted failure, the safe side.
 */
export async function reserveSignInAttempt(db: Db, account: string, address: string, now: Date): Promise<ThrottleVerdict> {
  const since = new Date(now.getTime() - THROTTLE.windowMs);
  return db.transaction(async (tx) => {
    await lockFor(tx, 'sign-in-account', account);
    await lockFor(tx, 'sign-in-address', address);
    const pair = await countSince(tx, and(eq(signInFailures.account, account), eq(signInFailures.address, address), gt(signInFailures.at, since)));
    const addr = await countSince(tx, and(eq(signInFailures.address, address), gt(signInFailures.at, since)));
    const acct = await countSince(tx, and(eq(signInFailures.account, account), gt(signInFailures.at, since)));
    if (pair >= THROTTLE.perAccountAddress || addr >= THROTTLE.perAddress || acct >= THROTTLE.perAccount) {
      // Conservative: the whole window. Saying exactly when the oldest failure leaves would tell an
      // attacker precisely when to fire the next guess.
      return { allowed: false, retryAfterSeconds: THROTTLE.windowMs / 1000 };
    }
    const [row] = await tx.insert(signInFailures).values({ account, address, at: now }).returning({ id: signInFailures.id });
    // Old rows are useless: prune this account's expired ones on the way (bounded table growth).
    await tx.delete(signInFailures).where(and(eq(signInFailures.account, account), lt(signInFailures.at, since)));
    return { allowed: true, reservation: (row as { id: number }).id };
  });
}

/** A successful sign-in clears its reservation and the failures of that account from that address. */
export async function clearSignInFailures(db: Executor, account: string, address: string): Promise<void> {
  await db.delete(signInFailures).where(and(eq(signInFailures.account, account), eq(signInFailures.address, address)));
}

/**
 * A secret checked for a signed-in person (their current password before a change, a code before
 * turning the second factor off) counts in the same throttle as sign-in, so a stolen session
 * cannot be used to guess the password or the codes. Too many failures: RATE_LIMITED.
 */
export async function throttledCheck(db: Db, account: string, address: string, check: () => Promise<boolean>): Promise<boolean> {
  const verdict = await reserveSignInAttempt(db, account, address, new Date());
  if (!verdict.allowed)
    throw new AppError(ErrorCode.RATE_LIMITED, 'too many failed attempts; wait before trying again', { retryAfterSeconds: verdict.retryAfterSeconds });
  const ok = await check();
  if (ok) await clearSignInFailures(db, account, address);
  return ok;
}
