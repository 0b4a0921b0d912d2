import { and, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { mailMessages } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';
import { DIGEST_MAIL_KIND } from './mail-kinds.js';
import type { ClaimedMail } from './mail-queue.js';

const HOUR = 3_600_000;

/** The end of the clock hour (UTC) that holds `at`: when that hour's digest is sent. */
export const digestDueAt = (at: Date): Date => new Date(Math.floor(at.getTime() / HOUR) * HOUR + HOUR);

const hhmm = (d: Date): string => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/**
 * Folds new-report notices that the per-recipient cap kept back into the digest of their clock
 * hour (issue 32, finding 1): one `report.digest` mail per company, recipient and hour, due when
 * the hour ends, made by the first notice folded into it (its dedupe key names all three). The
 * notices become `folded`, pointing at the digest, which counts them when it is claimed.
 *
 * Nothing folds into a digest that is claimed or finished: the upsert updates only a pending,
 * unclaimed digest row (and holds its lock until commit, so no claim reads its count meanwhile);
 * otherwise the notices go to the next hour's digest. So every folded notice is counted by exactly
 * one digest mail.
 */
export async function foldIntoDigest(db: Db, folds: readonly { m: ClaimedMail; at: Date }[]): Promise<void> {
  const groups = new Map<string, { m: ClaimedMail; at: Date; ids: string[] }>();
  for (const f of folds) {
    const key = `${f.m.companyId}:${f.m.recipient.toLowerCase()}:${digestDueAt(f.at).getTime()}`;
    const g = groups.get(key);
    if (g) g.ids.push(f.m.id);
    else groups.set(key, { m: f.m, at: f.at, ids: [f.m.id] });
  }
  for (const { m, at, ids } of groups.values()) {
    await db.transaction(async (tx) => {
      for (let due = digestDueAt(at); ; due = new Date(due.getTime() + HOUR)) {
        const [digest] = await tx
          .insert(mailMessages)
          .values({
            id: newId(),
            companyId: m.companyId,
            kind: DIGEST_MAIL_KIND,
            recipient: m.recipient,
            userId: m.userId,
            data: {},
            dedupeKey: `digest:${m.companyId}:${m.recipient.toLowerCase()}:${due.toISOString()}`,
            nextAttemptAt: due,
            createdAt: at,
          })
          .onConflictDoUpdate({
            target: mailMessages.dedupeKey,
            set: { nextAttemptAt: sql`${mailMessages.nextAttemptAt}` },
            setWhere: and(eq(mailMessages.state, 'pending'), isNull(mailMessages.lockedUntil)),
          })
          .returning({ id: mailMessages.id });
        if (!digest) continue;
        await tx
          .update(mailMessages)
          .set({ state: 'folded', digestId: digest.id, lockedUntil: null, finishedAt: at, data: null, lastError: `folded into the digest of ${hhmm(due)}` })
          .where(inArray(mailMessages.id, ids));
        return;
      }
    });
  }
}

export type DigestView = { recipient: string; folded: number; dueAt: string; state: string };

/** The company's digests of the last 7 days, newest first: how many notices each folded, to whom, when. */
export async function recentDigests(db: Db, companyId: string, now = new Date()): Promise<DigestView[]> {
  const rows = await db
    .select({
      recipient: mailMessages.recipient,
      dueAt: mailMessages.nextAttemptAt,
      state: mailMessages.state,
      // Drizzle leaves a column of the selected table unqualified; the subquery's own alias hides the outer name, so it is spelt out.
      folded: sql<number>`(select count(*)::int from ${mailMessages} f where f.digest_id = "mail_messages"."id")`,
    })
    .from(mailMessages)
    .where(
      and(eq(mailMessages.companyId, companyId), eq(mailMessages.kind, DIGEST_MAIL_KIND), gt(mailMessages.createdAt, new Date(now.getTime() - 7 * 86_400_000))),
    )
    .orderBy(desc(mailMessages.nextAttemptAt))
    .limit(20);
  return rows.map((r) => ({ recipient: r.recipient, folded: Number(r.folded), dueAt: r.dueAt.toISOString(), state: r.state }));
}
