import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import { endOtherSessions } from '../sessions/sessions.js';
import { lockFor } from '../../db/advisory-lock.js';
import type { Context } from '../../kernel/context.js';
import { conflict, notFound } from '../../kernel/errors.js';
import { isUuid } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { lastSignIns } from '../audit/last-sign-ins.js';
import { recordAudit } from '../audit/record-audit.js';
import type { Role } from '../users/roles.js';
import { ChangeRoleInput, type Member } from './team.schemas.js';

/** The company's members, oldest first, with their last successful sign-in. Never a password hash. */
export async function listMembers(db: Db, companyId: string): Promise<Member[]> {
  const rows = await db
    .select({ id: users.id, email: users.email, role: users.role, createdAt: users.createdAt })
    .from(users)
    .where(eq(users.companyId, companyId))
    .orderBy(asc(users.createdAt), asc(users.email));
  const last = await lastSignIns(
    db,
    companyId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, lastSignInAt: last.get(r.id) ?? null }));
}

const LAST_ADMIN = 'the company must keep at least one administrator: make another member an administrator first';

/**
 * Locks the company's team for the rest of the transaction and returns the member. Every change
 * that can take away an administrator takes this lock first (a transaction-scoped advisory lock,
 * held across instances), so two administrators demoting each other at once run one after the
 * other and the second sees that it would leave none.
 */
async function lockMember(tx: Executor, companyId: string, userId: string): Promise<{ id: string; email: string; role: Role }> {
  await lockFor(tx, 'team', companyId);
  if (!isUuid(userId)) throw notFound('member');
  const [m] = await tx
    .select({ id: users.id, email: users.email, role: users.role })
    .from(users)
    .where(and(eq(users.companyId, companyId), eq(users.id, userId)));
  if (!m) throw notFound('member');
  return m;
}

async function adminCount(tx: Executor, companyId: string): Promise<number> {
  const [r] = await tx
    .select({ n: sql<number>`count(*)::int` })
    .from(users)
    .where(and(eq(users.companyId, companyId), eq(users.role, 'admin')));
  return Number(r?.n ?? 0);
}

/** Changes a member's role and ends all their sessions (they sign in again under the new role). The last administrator cannot be demoted. */
export async function changeMemberRole(
  db: Db,
  ctx: Context,
  companyId: string,
  userId: string,
  raw: unknown,
): Promise<{ id: string; email: string; from: Role; to: Role; sessionsEnded: number }> {
  const { role } = parseInput(ChangeRoleInput, raw);
  return db.transaction(async (tx) => {
    const m = await lockMember(tx, companyId, userId);
    if (m.role === role) return { id: m.id, email: m.email, from: m.role, to: role, sessionsEnded: 0 };
    if (m.role === 'admin' && (await adminCount(tx, companyId)) <= 1) throw conflict(LAST_ADMIN);
    await tx
      .update(users)
      .set({ role })
      .where(and(eq(users.companyId, companyId), eq(users.id, m.id)));
    const ended = await endOtherSessions(tx, companyId, m.id, undefined);
    await recordAudit(tx, ctx, {
      companyId,
      action: 'team.role_change',
      targetType: 'user',
      targetId: m.id,
      details: { email: m.email, from: m.role, to: role, sessionsEnded: ended },
    });
    return { id: m.id, email: m.email, from: m.role, to: role, sessionsEnded: ended };
  });
}

/** Removes a member: their account, sessions and mail choices go at once; audit rows naming them stay. The last administrator cannot be removed. */
export async function removeMember(db: Db, ctx: Context, companyId: string, userId: string): Promise<{ id: string; email: string; role: Role }> {
  return db.transaction(async (tx) => {
    const m = await lockMember(tx, companyId, userId);
    if (m.role === 'admin' && (await adminCount(tx, companyId)) <= 1) throw conflict(LAST_ADMIN);
    const ended = await endOtherSessions(tx, companyId, m.id, undefined);
    await tx.delete(users).where(and(eq(users.companyId, companyId), eq(users.id, m.id)));
    await recordAudit(tx, ctx, {
      companyId,
      action: 'team.remove',
      targetType: 'user',
      targetId: m.id,
      details: { email: m.email, role: m.role, sessionsEnded: ended },
    });
    return m;
  });
}
