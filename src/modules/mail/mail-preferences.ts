import { and, desc, eq, gt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { mailMessages, mailPreferences, users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { recordAudit } from '../audit/record-audit.js';
import { type DigestView, recentDigests } from './mail-digest.js';
import { TEAM_MAIL_KINDS, TEAM_MAIL_LABELS, type TeamMailKind, teamMailDefault } from './mail-kinds.js';

export type MailChoice = { kind: TeamMailKind; label: string; enabled: boolean };

async function memberRole(db: Db, companyId: string, userId: string): Promise<string> {
  const [u] = await db
    .select({ role: users.role })
    .from(users)
    .where(and(eq(users.companyId, companyId), eq(users.id, userId)));
  if (!u) throw new AppError(ErrorCode.NOT_FOUND, 'user not found');
  return u.role;
}

/** A team member's mail choices: their own where they chose, else their role's default. */
export async function teamMailChoices(db: Db, companyId: string, userId: string): Promise<MailChoice[]> {
  const role = await memberRole(db, companyId, userId);
  const rows = await db
    .select()
    .from(mailPreferences)
    .where(and(eq(mailPreferences.companyId, companyId), eq(mailPreferences.userId, userId)));
  const chosen = new Map(rows.map((r) => [r.kind, r.enabled]));
  return TEAM_MAIL_KINDS.map((kind) => ({ kind, label: TEAM_MAIL_LABELS[kind], enabled: chosen.get(kind) ?? teamMailDefault(kind, role) }));
}

/** Records a member's choices for every kind (each one stated, so a later default change moves nobody). Audited. */
export async function setTeamMailChoices(db: Db, ctx: Context, companyId: string, userId: string, enabled: ReadonlySet<string>): Promise<void> {
  await db.transaction(async (tx) => {
    const [u] = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.companyId, companyId), eq(users.id, userId)));
    if (!u) throw new AppError(ErrorCode.NOT_FOUND, 'user not found');
    const rows = TEAM_MAIL_KINDS.map((kind) => ({ userId, companyId, kind, enabled: enabled.has(kind) }));
    await tx
      .insert(mailPreferences)
      .values(rows)
      .onConflictDoUpdate({ target: [mailPreferences.userId, mailPreferences.kind], set: { enabled: sql`excluded.enabled` } });
    await recordAudit(tx, ctx, {
      companyId,
      action: 'users.mail_preferences',
      targetType: 'user',
      targetId: userId,
      details: { enabled: TEAM_MAIL_KINDS.filter((k) => enabled.has(k)) },
    });
  });
}

export type MailOverview = {
  counts: Record<string, number>;
  problems: { id: string; kind: string; recipient: string; state: string; attempts: number; error: string | null; at: string }[];
  /** New-report notices folded into digests (the cap was reached), per digest. */
  digests: DigestView[];
};

/**
 * The company's mail over the last 7 days by state, the latest mails that failed, are retrying or
 * were held back, and the digests that folded new-report notices (one line each, not one per notice).
 */
export async function mailOverview(db: Db, companyId: string, now = new Date()): Promise<MailOverview> {
  const since = new Date(now.getTime() - 7 * 86_400_000);
  const [counts, problems, digests] = await Promise.all([
    db
      .select({ state: mailMessages.state, n: sql<number>`count(*)::int` })
      .from(mailMessages)
      .where(and(eq(mailMessages.companyId, companyId), gt(mailMessages.createdAt, since)))
      .groupBy(mailMessages.state),
    db
      .select()
      .from(mailMessages)
      .where(
        and(
          eq(mailMessages.companyId, companyId),
          sql`(${mailMessages.state} in ('dead', 'suppressed') or (${mailMessages.lastError} is not null and ${mailMessages.state} <> 'folded'))`,
          gt(mailMessages.createdAt, since),
        ),
      )
      .orderBy(desc(mailMessages.createdAt))
      .limit(20),
    recentDigests(db, companyId, now),
  ]);
  return {
    counts: Object.fromEntries(counts.map((c) => [c.state, Number(c.n)])),
    problems: problems.map((m) => ({
      id: m.id,
      kind: m.kind,
      recipient: m.recipient,
      state: m.state,
      attempts: m.attempts,
      error: m.lastError,
      at: (m.finishedAt ?? m.createdAt).toISOString(),
    })),
    digests,
  };
}
