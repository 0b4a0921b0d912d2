import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { pendingSignIns, users } from '../../db/schema/index.js';
import { randomHex, safeEqual, sha256Hex } from '../../kernel/ids.js';

/** A password step that still owes its second factor lives this long, and allows this many wrong codes. */
export const PENDING_SIGN_IN_MS = 5 * 60_000;
export const PENDING_WRONG_CODES = 5;
const TOKEN = /^[0-9a-f]{64}$/;

export type PendingSignIn = { digest: string; userId: string; companyId: string; email: string };

/** Records a right password whose second factor is due; the token goes to the form, its digest to the database. */
export async function startPendingSignIn(db: Executor, userId: string, companyId: string, now: Date): Promise<string> {
  const token = randomHex(32);
  await db.delete(pendingSignIns).where(lt(pendingSignIns.expiresAt, now));
  await db
    .insert(pendingSignIns)
    .values({ tokenDigest: sha256Hex(token), userId, companyId, createdAt: now, expiresAt: new Date(now.getTime() + PENDING_SIGN_IN_MS) });
  return token;
}

/** The live pending sign-in of a token, or undefined (unknown, expired, or out of tries). */
export async function findPendingSignIn(db: Executor, token: string, now: Date): Promise<PendingSignIn | undefined> {
  if (!TOKEN.test(token)) return undefined;
  const digest = sha256Hex(token);
  const [row] = await db
    .select({ digest: pendingSignIns.tokenDigest, userId: pendingSignIns.userId, companyId: pendingSignIns.companyId, email: users.email })
    .from(pendingSignIns)
    .innerJoin(users, and(eq(users.id, pendingSignIns.userId), eq(users.companyId, pendingSignIns.companyId)))
    .where(and(eq(pendingSignIns.tokenDigest, digest), gt(pendingSignIns.expiresAt, now), lt(pendingSignIns.wrongCodes, PENDING_WRONG_CODES)))
    .limit(1);
  return row && safeEqual(row.digest, digest) ? row : undefined;
}

/** Counts a wrong code; returns how many tries are left (0: the pending sign-in is gone). */
export async function countWrongCode(db: Executor, p: PendingSignIn): Promise<number> {
  const [row] = await db
    .update(pendingSignIns)
    .set({ wrongCodes: sql`${pendingSignIns.wrongCodes} + 1` })
    .where(and(eq(pendingSignIns.tokenDigest, p.digest), eq(pendingSignIns.companyId, p.companyId)))
    .returning({ wrong: pendingSignIns.wrongCodes });
  const left = Math.max(0, PENDING_WRONG_CODES - (row?.wrong ?? PENDING_WRONG_CODES));
  if (left === 0) await endPendingSignIn(db, p);
  return left;
}

/** Ends a pending sign-in; true when this call ended it (so two requests cannot both finish it). */
export async function endPendingSignIn(db: Executor, p: PendingSignIn): Promise<boolean> {
  const gone = await db
    .delete(pendingSignIns)
    .where(and(eq(pendingSignIns.tokenDigest, p.digest), eq(pendingSignIns.companyId, p.companyId)))
    .returning({ d: pendingSignIns.tokenDigest });
  return gone.length === 1;
}
