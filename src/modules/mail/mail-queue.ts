import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { newId } from '../../kernel/ids.js';
import { companies, mailMessages, reports } from '../../db/schema/index.js';
import type { MailKind } from './mail-kinds.js';
import type { MailData } from './mail-templates.js';

export type ClaimedMail = {
  id: string;
  companyId: string;
  kind: MailKind;
  recipient: string;
  userId: string | null;
  reportId: string | null;
  data: MailData;
  attempts: number;
  company: { name: string; slug: string; languages: string[] };
  /** For researcher mail: the report's OpenPGP key, unsubscribe token and whether it still wants mail. */
  researcher?: { pgpKey: string | null; mailToken: string | null; wanted: boolean };
};

/**
 * Queues one mail that no outbox event stands for (an invitation), with the caller's executor, so
 * it commits with the change that wants it. The caller checked the address (`isSafeMailbox`).
 */
export async function queueMail(tx: Executor, m: { companyId: string; kind: MailKind; recipient: string; data: MailData; now: Date }): Promise<void> {
  await tx.insert(mailMessages).values({ id: newId(), companyId: m.companyId, kind: m.kind, recipient: m.recipient, data: m.data, nextAttemptAt: m.now, createdAt: m.now });
}

/** Retry delays in seconds after each failed attempt; after the last, the mail is dead-lettered (about 2 days). */
export const MAIL_RETRY_SECONDS = [60, 300, 900, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600] as const;

/**
 * Claims due mail with a lease (a crashed sender's claim expires and the mail is sent again:
 * at-least-once) and `skip locked`, so several instances send side by side.
 */
export async function claimDueMail(db: Db, now: Date, o: { batch: number; leaseMs: number }): Promise<ClaimedMail[]> {
  const until = new Date(now.getTime() + o.leaseMs);
  const claimed = await db.transaction(async (tx) => {
    const due = await tx
      .select({ id: mailMessages.id })
      .from(mailMessages)
      .where(and(eq(mailMessages.state, 'pending'), sql`${mailMessages.nextAttemptAt} <= ${now}`, sql`(${mailMessages.lockedUntil} is null or ${mailMessages.lockedUntil} <= ${now})`))
      .orderBy(mailMessages.nextAttemptAt)
      .limit(o.batch)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(mailMessages)
      .set({ lockedUntil: until, attempts: sql`${mailMessages.attempts} + 1` })
      .where(inArray(mailMessages.id, due.map((d) => d.id)))
      .returning();
  });
  if (claimed.length === 0) return [];
  const companyIds = [...new Set(claimed.map((m) => m.companyId))];
  const reportIds = [...new Set(claimed.flatMap((m) => (m.reportId ? [m.reportId] : [])))];
  const [cos, reps] = await Promise.all([
    db.select({ id: companies.id, name: companies.name, slug: companies.slug, languages: companies.languages }).from(companies).where(inArray(companies.id, companyIds)),
    reportIds.length
      ? db.select({ id: reports.id, pgpKey: reports.pgpKey, mailToken: reports.researcherMailToken, wanted: reports.researcherUpdates }).from(reports).where(inArray(reports.id, reportIds))
      : [],
  ]);
  return claimed
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .flatMap((m) => {
      const company = cos.find((c) => c.id === m.companyId);
      if (!company) return [];
      const r = m.reportId ? reps.find((x) => x.id === m.reportId) : undefined;
      const researcher = r ? { pgpKey: r.pgpKey, mailToken: r.mailToken, wanted: r.wanted } : undefined;
      return [{ id: m.id, companyId: m.companyId, kind: m.kind as MailKind, recipient: m.recipient, userId: m.userId, reportId: m.reportId, data: m.data ?? {}, attempts: m.attempts, company, ...(researcher ? { researcher } : {}) }];
    });
}

/** Mails sent to each of these recipients (case-insensitive) since `since`. */
export async function sentSince(db: Db, recipients: readonly string[], since: Date): Promise<Map<string, number>> {
  if (recipients.length === 0) return new Map();
  const lower = [...new Set(recipients.map((r) => r.toLowerCase()))];
  const rows = await db
    .select({ r: sql<string>`lower(${mailMessages.recipient})`, n: sql<number>`count(*)::int` })
    .from(mailMessages)
    .where(and(eq(mailMessages.state, 'sent'), inArray(sql`lower(${mailMessages.recipient})`, lower), sql`${mailMessages.finishedAt} > ${since}`))
    .groupBy(sql`lower(${mailMessages.recipient})`);
  return new Map(rows.map((x) => [x.r, Number(x.n)]));
}

export type MailOutcome =
  | { state: 'sent'; encrypted: boolean }
  | { state: 'suppressed'; reason: string }
  | { state: 'failed'; error: string; permanent: boolean };

/** Records many sent mails in one statement (the common case of a pass). */
export async function recordSent(db: Db, sent: readonly { id: string; encrypted: boolean }[], now: Date): Promise<void> {
  for (const encrypted of [false, true]) {
    const ids = sent.filter((m) => m.encrypted === encrypted).map((m) => m.id);
    if (ids.length > 0) await db.update(mailMessages).set({ lockedUntil: null, finishedAt: now, data: null, state: 'sent', lastError: null, encrypted }).where(inArray(mailMessages.id, ids));
  }
}

/** Records what happened to a claimed mail. A finished mail keeps no template values. */
export async function recordMailOutcome(db: Db, m: ClaimedMail, out: MailOutcome, now: Date, retryScale = 1): Promise<'sent' | 'suppressed' | 'retry' | 'dead'> {
  const done = { lockedUntil: null, finishedAt: now, data: null };
  if (out.state === 'sent') {
    await db.update(mailMessages).set({ ...done, state: 'sent', lastError: null, encrypted: out.encrypted }).where(eq(mailMessages.id, m.id));
    return 'sent';
  }
  if (out.state === 'suppressed') {
    await db.update(mailMessages).set({ ...done, state: 'suppressed', lastError: out.reason }).where(eq(mailMessages.id, m.id));
    return 'suppressed';
  }
  const error = out.error.slice(0, 500);
  const delay = out.permanent ? undefined : MAIL_RETRY_SECONDS[m.attempts - 1];
  if (delay === undefined) {
    await db.update(mailMessages).set({ ...done, state: 'dead', lastError: error }).where(eq(mailMessages.id, m.id));
    return 'dead';
  }
  await db.update(mailMessages).set({ lockedUntil: null, lastError: error, nextAttemptAt: new Date(now.getTime() + delay * 1000 * retryScale) }).where(eq(mailMessages.id, m.id));
  return 'retry';
}
