import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { invitations, users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { isUniqueViolation } from '../../kernel/db-errors.js';
import { conflict, notFound, validation } from '../../kernel/errors.js';
import { isUuid, newId, randomHex, sha256Hex } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { isSafeMailbox } from '../mail/mail-header.js';
import { queueMail } from '../mail/mail-queue.js';
import { ROLE_LABELS } from '../users/roles.js';
import { INVITATION_TTL_MS, InviteInput, type InvitationView, type IssuedInvitation } from './team.schemas.js';

/** Where links point and whether mail goes out: the transport knows, the verb does not read config. */
export type InviteEnv = { siteUrl: string; companyName: string; mail: boolean; now?: Date };

type Row = typeof invitations.$inferSelect;

export const invitationView = (r: Row, now: Date): InvitationView => ({
  id: r.id,
  email: r.email,
  role: r.role,
  invitedBy: r.invitedBy,
  createdAt: r.createdAt,
  expiresAt: r.expiresAt,
  expired: r.expiresAt.getTime() <= now.getTime(),
});

const pendingOf = (companyId: string) => and(eq(invitations.companyId, companyId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt));

/** The company's invitations not yet accepted or revoked (expired ones included, marked), newest first. */
export async function listPendingInvitations(db: Db, companyId: string, now = new Date()): Promise<InvitationView[]> {
  const rows = await db.select().from(invitations).where(pendingOf(companyId)).orderBy(desc(invitations.createdAt));
  return rows.map((r) => invitationView(r, now));
}

/** A fresh link: the token goes into the link (and the queued mail) only; the row keeps its digest. */
async function sendLink(tx: Executor, row: Row, env: InviteEnv, now: Date): Promise<IssuedInvitation & { digest: string }> {
  const token = randomHex(32);
  const link = `${env.siteUrl}/invite/${token}`;
  if (env.mail) {
    const data = {
      company: env.companyName.slice(0, 200),
      role: ROLE_LABELS[row.role],
      inviteUrl: link,
      expiresAt: `${row.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    };
    await queueMail(tx, { companyId: row.companyId, kind: 'team.invitation', recipient: row.email, data, now });
  }
  return { invitation: invitationView(row, now), link, mailQueued: env.mail, digest: sha256Hex(token) };
}

/**
 * Invites `email` to the company with a role: one pending invitation per address (an expired one
 * is replaced), refused for an address that is already a member of this company. An address with
 * an account elsewhere is invited like any other (docs/access.md "Team and roles"): its link then
 * says so to its holder only. Queues the mail in the same transaction when mail is on. Audited,
 * never with the token.
 */
export async function inviteMember(db: Db, ctx: Context, companyId: string, invitedBy: string | null, raw: unknown, env: InviteEnv): Promise<IssuedInvitation> {
  const input = parseInput(InviteInput, raw);
  if (!isSafeMailbox(input.email))
    throw validation('email: Cradle cannot mail this address', [{ path: 'email', message: 'use a plain address such as name@example.com' }]);
  // Only this company's members are looked for (issue 32, finding 5): whether the address has an
  // account with another company is never asked here, so the answer cannot tell. The holder of the
  // link learns it when opening it (lookupInvitation), and accepting then creates nothing.
  const member = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.companyId, companyId), eq(sql`lower(${users.email})`, input.email.toLowerCase())))
    .limit(1);
  if (member.length > 0) throw conflict(`${input.email} is already a member of this team`);
  const now = env.now ?? new Date();
  try {
    return await db.transaction(async (tx) => {
      const [live] = await tx
        .select()
        .from(invitations)
        .where(and(pendingOf(companyId), eq(sql`lower(${invitations.email})`, input.email.toLowerCase())))
        .for('update');
      if (live && live.expiresAt > now) throw conflict(`${input.email} is already invited; send the invitation again or revoke it`);
      if (live) await tx.update(invitations).set({ revokedAt: now }).where(eq(invitations.id, live.id));
      const base: Row = {
        id: newId(),
        companyId,
        email: input.email,
        role: input.role,
        tokenDigest: '',
        invitedBy,
        createdAt: now,
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        acceptedAt: null,
        revokedAt: null,
      };
      const { digest, ...issued } = await sendLink(tx, base, env, now);
      await tx.insert(invitations).values({ ...base, tokenDigest: digest });
      await recordAudit(tx, ctx, {
        companyId,
        action: 'team.invite',
        targetType: 'invitation',
        targetId: base.id,
        details: { email: input.email, role: input.role, mailed: env.mail },
        at: now,
      });
      return issued;
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(`${input.email} is already invited; send the invitation again or revoke it`);
    throw e;
  }
}

async function lockPending(tx: Executor, companyId: string, id: string): Promise<Row> {
  if (!isUuid(id)) throw notFound('invitation');
  const [row] = await tx
    .select()
    .from(invitations)
    .where(and(pendingOf(companyId), eq(invitations.id, id)))
    .for('update');
  if (!row) throw notFound('invitation');
  return row;
}

/** Sends a pending invitation again: a new link (the old one stops working) valid for another 7 days. */
export async function resendInvitation(db: Db, ctx: Context, companyId: string, id: string, env: InviteEnv): Promise<IssuedInvitation> {
  const now = env.now ?? new Date();
  return db.transaction(async (tx) => {
    const row = { ...(await lockPending(tx, companyId, id)), expiresAt: new Date(now.getTime() + INVITATION_TTL_MS) };
    const { digest, ...issued } = await sendLink(tx, row, env, now);
    await tx.update(invitations).set({ tokenDigest: digest, expiresAt: row.expiresAt }).where(eq(invitations.id, row.id));
    await recordAudit(tx, ctx, {
      companyId,
      action: 'team.invite_resend',
      targetType: 'invitation',
      targetId: row.id,
      details: { email: row.email, role: row.role, mailed: env.mail },
      at: now,
    });
    return issued;
  });
}

/** Withdraws a pending invitation: its link answers "withdrawn" from now on. */
export async function revokeInvitation(db: Db, ctx: Context, companyId: string, id: string, now = new Date()): Promise<InvitationView> {
  return db.transaction(async (tx) => {
    const row = await lockPending(tx, companyId, id);
    await tx.update(invitations).set({ revokedAt: now }).where(eq(invitations.id, row.id));
    await recordAudit(tx, ctx, {
      companyId,
      action: 'team.invite_revoke',
      targetType: 'invitation',
      targetId: row.id,
      details: { email: row.email, role: row.role },
      at: now,
    });
    return invitationView(row, now);
  });
}
