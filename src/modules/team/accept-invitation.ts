import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { invitations, users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { isUniqueViolation } from '../../kernel/db-errors.js';
import { AppError, conflict, ErrorCode } from '../../kernel/errors.js';
import { newId, safeEqual, sha256Hex } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getCompanyById } from '../companies/get-company.js';
import { type SessionOrigin, startSession } from '../sessions/sessions.js';
import { hashNewPassword } from '../users/password.js';
import type { Role } from '../users/roles.js';
import { z } from 'zod';
import { Password } from '../users/users.schemas.js';

const TOKEN = /^[0-9a-f]{64}$/;

/** `taken`: pending, but its address already has an account (here or with another company), so it cannot join. */
export type InvitationState = 'pending' | 'taken' | 'accepted' | 'revoked' | 'expired';

/** What the holder of a link may learn: its own invitation's company, address and role; nothing else. */
export type FoundInvitation = { state: InvitationState; id: string; companyId: string; companyName: string; email: string; role: Role; expiresAt: Date };
export type InvitationLookup = { state: 'unknown' } | FoundInvitation;

/** Whether an address has an account with any company (e-mail is unique across the instance); the caller runs as system. */
async function hasAccount(db: Db, email: string): Promise<boolean> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.toLowerCase()))
    .limit(1);
  return rows.length > 0;
}

const stateOf = (r: typeof invitations.$inferSelect, now: Date): InvitationState =>
  r.acceptedAt ? 'accepted' : r.expiresAt.getTime() <= now.getTime() ? 'expired' : r.revokedAt ? 'revoked' : 'pending';

/**
 * The invitation a link names, by the digest of its token (compared again in constant time).
 * Runs across companies (the link names no company), so the caller runs it as system.
 */
export async function lookupInvitation(db: Db, token: string, now = new Date()): Promise<InvitationLookup> {
  if (!TOKEN.test(token)) return { state: 'unknown' };
  const digest = sha256Hex(token);
  const [r] = await db.select().from(invitations).where(eq(invitations.tokenDigest, digest)).limit(1);
  if (!r || !safeEqual(r.tokenDigest, digest)) return { state: 'unknown' };
  const company = await getCompanyById(db, r.companyId);
  const state = stateOf(r, now);
  const taken = state === 'pending' && (await hasAccount(db, r.email));
  return { state: taken ? 'taken' : state, id: r.id, companyId: r.companyId, companyName: company.name, email: r.email, role: r.role, expiresAt: r.expiresAt };
}

export const AcceptInput = z.object({ password: Password });

/**
 * Why a link cannot be used: 404 for an unknown link, 409 for one whose address already has an
 * account, 410 for one that was used, withdrawn or expired.
 */
export class InvitationUnusable extends AppError {
  readonly state: 'unknown' | Exclude<InvitationState, 'pending'>;
  constructor(state: 'unknown' | Exclude<InvitationState, 'pending'>) {
    super(state === 'unknown' ? ErrorCode.NOT_FOUND : ErrorCode.CONFLICT, `invitation ${state}`);
    this.state = state;
  }
}

export type Joined = { userId: string; companyId: string; session: { token: string; csrfToken: string; expiresAt: Date } };

/**
 * Joins through a link: checks the password against the shared policy (`hashNewPassword`), hashes it
 * outside the transaction, then under a lock on the invitation creates the user with the invited
 * role, marks the invitation used and starts a session, all in one transaction: a second use, a
 * withdrawn or an expired link creates nothing. Runs as system (the caller), like sign-in. `origin`:
 * where the session is started from (the browser's address bucket and user agent, as at sign-in).
 */
export async function acceptInvitation(db: Db, ctx: Context, token: string, raw: unknown, o: { now?: Date; origin?: SessionOrigin } = {}): Promise<Joined> {
  const now = o.now ?? new Date();
  const found = await lookupInvitation(db, token, now);
  if (found.state !== 'pending') throw new InvitationUnusable(found.state);
  const input = parseInput(AcceptInput, raw);
  // The whole policy: with the invited address and the company's name, as at set-up and on change.
  const passwordHash = await hashNewPassword(input.password, { email: found.email, companyName: found.companyName });
  try {
    return await db.transaction(async (tx) => {
      const [r] = await tx.select().from(invitations).where(eq(invitations.id, found.id)).for('update');
      if (!r || !safeEqual(r.tokenDigest, sha256Hex(token))) throw new InvitationUnusable('unknown');
      const state = stateOf(r, now);
      if (state !== 'pending') throw new InvitationUnusable(state);
      const userId = newId();
      await tx.insert(users).values({ id: userId, companyId: r.companyId, email: r.email, passwordHash, role: r.role, createdAt: now });
      await tx.update(invitations).set({ acceptedAt: now }).where(eq(invitations.id, r.id));
      const actor = { ...ctx, actor: { type: 'user', id: userId } } as const;
      await recordAudit(tx, actor, {
        companyId: r.companyId,
        action: 'users.create',
        targetType: 'user',
        targetId: userId,
        details: { email: r.email, role: r.role, invitation: r.id },
        at: now,
      });
      const session = await startSession(tx, userId, r.companyId, now, o.origin);
      await recordAudit(tx, actor, {
        companyId: r.companyId,
        action: 'session.sign_in',
        targetType: 'user',
        targetId: userId,
        details: { via: 'invitation' },
        at: now,
      });
      return { userId, companyId: r.companyId, session };
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(`${found.email} already has a Cradle account; sign in with it instead`);
    throw e;
  }
}
