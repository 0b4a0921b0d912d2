import { and, desc, eq, gt } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { sessions } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { isUuid } from '../../kernel/ids.js';
import { notFound } from '../../kernel/errors.js';
import { recordAudit } from '../audit/record-audit.js';
import { endOtherSessions, SESSION_IDLE_MS, type SessionView } from './sessions.js';

export type AccountSession = {
  id: string;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  address: string | null;
  userAgent: string | null;
  current: boolean;
};

/** The signed-in person's live sessions, newest first, the current one marked. Never a token or digest. */
export async function listAccountSessions(db: Db, s: SessionView, now = new Date()): Promise<AccountSession[]> {
  const rows = await db
    .select({
      id: sessions.id,
      digest: sessions.tokenDigest,
      createdAt: sessions.createdAt,
      lastSeenAt: sessions.lastSeenAt,
      expiresAt: sessions.expiresAt,
      address: sessions.address,
      userAgent: sessions.userAgent,
    })
    .from(sessions)
    .where(
      and(
        eq(sessions.userId, s.user.id),
        eq(sessions.companyId, s.company.id),
        gt(sessions.expiresAt, now),
        gt(sessions.lastSeenAt, new Date(now.getTime() - SESSION_IDLE_MS)),
      ),
    )
    .orderBy(desc(sessions.createdAt));
  return rows.map(({ digest, ...r }) => ({ ...r, current: digest === s.tokenDigest }));
}

/** Ends one of the person's own sessions by its id; another person's id is simply not found. */
export async function endAccountSession(db: Db, ctx: Context, s: SessionView, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound('session');
  await db.transaction(async (tx) => {
    const ended = await tx
      .delete(sessions)
      .where(and(eq(sessions.id, id), eq(sessions.userId, s.user.id), eq(sessions.companyId, s.company.id)))
      .returning({ id: sessions.id });
    if (ended.length === 0) throw notFound('session');
    await recordAudit(tx, ctx, {
      companyId: s.company.id,
      action: 'account.session_ended',
      targetType: 'user',
      targetId: s.user.id,
      details: { sessionId: id, current: id === s.id },
    });
  });
}

/** "Sign out everywhere": every session of the person, this one included. Returns how many ended. */
export async function endAllAccountSessions(db: Db, ctx: Context, s: SessionView): Promise<number> {
  return db.transaction(async (tx) => {
    const n = await endOtherSessions(tx, s.company.id, s.user.id, undefined);
    await recordAudit(tx, ctx, {
      companyId: s.company.id,
      action: 'account.signed_out_everywhere',
      targetType: 'user',
      targetId: s.user.id,
      details: { sessionsEnded: n },
    });
    return n;
  });
}
