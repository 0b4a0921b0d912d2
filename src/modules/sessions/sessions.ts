import { and, eq, ne, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { companies, sessions, users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { randomHex, safeEqual, sha256Hex } from '../../kernel/ids.js';
import { recordAudit } from '../audit/record-audit.js';
import type { Plan, Role } from '../../kernel/access.js';

/** Idle expiry: a session unused this long ends. Absolute expiry: it ends this long after sign-in. */
export const SESSION_IDLE_MS = 2 * 60 * 60_000;
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60_000;
/** last_seen is written at most this often, so reading pages is not a write per request. */
const TOUCH_EVERY_MS = 60_000;

const TOKEN = /^[0-9a-f]{64}$/;

export type SessionView = {
  id: string;
  tokenDigest: string;
  csrfToken: string;
  user: { id: string; email: string; role: Role; secondFactor: boolean };
  company: { id: string; name: string; slug: string; plan: Plan; requireSecondFactor: boolean; suspended: boolean };
  expiresAt: Date;
};

/** Where a session was started from: the address bucket (IPv6 per /64) and the user agent, for the account page. */
export type SessionOrigin = { address?: string | undefined; userAgent?: string | undefined };

/** Starts a session; the token goes to the cookie and only its digest to the database. */
export async function startSession(
  db: Executor,
  userId: string,
  companyId: string,
  now: Date,
  origin: SessionOrigin = {},
): Promise<{ token: string; csrfToken: string; expiresAt: Date }> {
  const token = randomHex(32);
  const csrfToken = randomHex(32);
  const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
  await db.insert(sessions).values({
    tokenDigest: sha256Hex(token),
    userId,
    companyId,
    csrfToken,
    createdAt: now,
    lastSeenAt: now,
    expiresAt,
    address: origin.address?.slice(0, 64) ?? null,
    userAgent: origin.userAgent?.slice(0, 200) ?? null,
  });
  return { token, csrfToken, expiresAt };
}

/** The live session of a cookie value, or undefined (unknown, idle too long, or past its end). */
export async function loadSession(db: Db, token: string | undefined, now = new Date()): Promise<SessionView | undefined> {
  if (!token || !TOKEN.test(token)) return undefined;
  const digest = sha256Hex(token);
  const [row] = await db
    .select({
      digest: sessions.tokenDigest,
      id: sessions.id,
      csrfToken: sessions.csrfToken,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      userId: users.id,
      email: users.email,
      role: users.role,
      totpEnabledAt: users.totpEnabledAt,
      companyId: companies.id,
      companyName: companies.name,
      slug: companies.slug,
      plan: companies.plan,
      requireSecondFactor: companies.requireSecondFactor,
      deletionDueAt: companies.deletionDueAt,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .innerJoin(companies, eq(companies.id, sessions.companyId))
    .where(eq(sessions.tokenDigest, digest))
    .limit(1);
  if (!row || !safeEqual(row.digest, digest)) return undefined;
  const t = now.getTime();
  if (row.expiresAt.getTime() <= t || row.lastSeenAt.getTime() + SESSION_IDLE_MS <= t) {
    await db.delete(sessions).where(eq(sessions.tokenDigest, digest));
    return undefined;
  }
  if (t - row.lastSeenAt.getTime() > TOUCH_EVERY_MS) {
    await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.tokenDigest, digest));
  }
  return {
    id: row.id,
    tokenDigest: digest,
    csrfToken: row.csrfToken,
    user: { id: row.userId, email: row.email, role: row.role, secondFactor: row.totpEnabledAt !== null },
    company: {
      id: row.companyId,
      name: row.companyName,
      slug: row.slug,
      plan: row.plan,
      requireSecondFactor: row.requireSecondFactor,
      suspended: row.deletionDueAt !== null,
    },
    expiresAt: new Date(Math.min(row.expiresAt.getTime(), t + SESSION_IDLE_MS)),
  };
}

/** Signs out: deletes the session so its cookie is worthless even if it was copied. */
export async function endSession(db: Db, ctx: Context, session: SessionView): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.delete(sessions).where(eq(sessions.tokenDigest, session.tokenDigest));
    await recordAudit(tx, ctx, { companyId: session.company.id, action: 'session.sign_out', targetType: 'user', targetId: session.user.id });
  });
}

/** Housekeeping: sessions past either expiry. Called now and then by sign-in. */
export async function pruneSessions(db: Executor, now: Date): Promise<void> {
  await db.delete(sessions).where(sql`${sessions.expiresAt} <= ${now} or ${sessions.lastSeenAt} <= ${new Date(now.getTime() - SESSION_IDLE_MS)}`);
}

/** The company requires a second factor and this member has none yet: only enrolment is open. */
export const mustEnrolSecondFactor = (s: SessionView): boolean => s.company.requireSecondFactor && !s.user.secondFactor;

/** Ends every session of a user except `keep` (a token digest); returns how many ended. */
export async function endOtherSessions(tx: Executor, companyId: string, userId: string, keep: string | undefined): Promise<number> {
  const mine = and(eq(sessions.companyId, companyId), eq(sessions.userId, userId));
  const ended = await tx
    .delete(sessions)
    .where(keep === undefined ? mine : and(mine, ne(sessions.tokenDigest, keep)))
    .returning({ id: sessions.id });
  return ended.length;
}
