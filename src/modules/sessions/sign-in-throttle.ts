import { and, count, eq, gt, lt } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { signInFailures } from '../../db/schema/index.js';

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

export type ThrottleVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number };

async function countSince(db: Executor, where: ReturnType<typeof and>): Promise<number> {
  const [row] = await db.select({ n: count() }).from(signInFailures).where(where);
  return Number(row?.n ?? 0);
}

export async function checkSignInThrottle(db: Executor, account: string, address: string, now: Date): Promise<ThrottleVerdict> {
  const since = new Date(now.getTime() - THROTTLE.windowMs);
  const [pair, addr, acct] = await Promise.all([
    countSince(db, and(eq(signInFailures.account, account), eq(signInFailures.address, address), gt(signInFailures.at, since))),
    countSince(db, and(eq(signInFailures.address, address), gt(signInFailures.at, since))),
    countSince(db, and(eq(signInFailures.account, account), gt(signInFailures.at, since))),
  ]);
  if (pair < THROTTLE.perAccountAddress && addr < THROTTLE.perAddress && acct < THROTTLE.perAccount) return { allowed: true };
  // Conservative: the whole window. Saying exactly when the oldest failure leaves would tell an
  // attacker precisely when to fire the next guess.
  return { allowed: false, retryAfterSeconds: THROTTLE.windowMs / 1000 };
}

export async function recordSignInFailure(db: Executor, account: string, address: string, now: Date): Promise<void> {
  await db.insert(signInFailures).values({ account, address, at: now });
  // Old rows are useless: prune this account's expired ones on the way (bounded table growth).
  await db.delete(signInFailures).where(and(eq(signInFailures.account, account), lt(signInFailures.at, new Date(now.getTime() - THROTTLE.windowMs))));
}

/** A successful sign-in clears the failures of that account from that address. */
export async function clearSignInFailures(db: Executor, account: string, address: string): Promise<void> {
  await db.delete(signInFailures).where(and(eq(signInFailures.account, account), eq(signInFailures.address, address)));
}
