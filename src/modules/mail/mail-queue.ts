import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { newId } from '../../kernel/ids.js';
import { companies, mailMessages, reports } from '../../db/schema/index.js';
import { DIGEST_MAIL_KIND, ERASURE_MAIL_KIND, type MailKind, UNCAPPED_MAIL_KINDS } from './mail-kinds.js';
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
  /** The end of this claim's lease: after it, any sender may claim the mail again. */
  lockedUntil: Date;
  company: { name: string; slug: string; languages: string[] };
  /** For researcher mail: the report's OpenPGP key, unsubscribe token and whether it still wants mail. */
  researcher?: { pgpKey: string | null; mailToken: string | null; wanted: boolean };
};

/**
 * Queues one mail that no outbox event stands for (an invitation), with the caller's executor, so
 * it commits with the change that wants it. The caller checked the address (`isSafeMailbox`).
 */
export async function queueMail(tx: Executor, m: { companyId: string; kind: MailKind; recipient: string; data: MailData; now: Date }): Promise<void> {
  await tx
    .insert(mailMessages)
    .values({ id: newId(), companyId: m.companyId, kind: m.kind, recipient: m.recipient, data: m.data, nextAttemptAt: m.now, createdAt: m.now });
}

/** Retry delays in seconds after each failed attempt; after the last, the mail is dead-lettered (about 2 days). */
export const MAIL_RETRY_SECONDS = [60, 300, 900, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600] as const;

type ClaimRow = {
  id: string;
  company_id: string;
  kind: string;
  recipient: string;
  user_id: string | null;
  report_id: string | null;
  data: MailData | null;
  attempts: number;
  name: string;
  slug: string;
  languages: string[];
  has_report: boolean;
  pgp_key: string | null;
  mail_token: string | null;
  wanted: boolean | null;
  folded: number | null;
};

/**
 * Claims due mail with a lease (a crashed sender's claim expires and the mail is sent again:
 * at-least-once) and `skip locked`, so several instances send side by side. One statement: the
 * claim, its company and, for researcher mail, the report's key and choice, in filing order.
 */
export async function claimDueMail(db: Db, now: Date, o: { batch: number; leaseMs: number }): Promise<ClaimedMail[]> {
  const until = new Date(now.getTime() + o.leaseMs);
  const rows = await selectRows<ClaimRow>(
    db,
    sql`with claimed as (
      update ${mailMessages} set locked_until = ${until}, attempts = ${mailMessages.attempts} + 1
      where ${mailMessages.id} in (
        select id from ${mailMessages}
        where state = 'pending' and next_attempt_at <= ${now} and (locked_until is null or locked_until <= ${now})
        order by next_attempt_at limit ${o.batch} for update skip locked)
      returning id, company_id, kind, recipient, user_id, report_id, data, attempts, created_at)
    select m.id, m.company_id, m.kind, m.recipient, m.user_id, m.report_id, m.data, m.attempts, c.name, c.slug, c.languages,
      r.id is not null as has_report, r.pgp_key, r.researcher_mail_token as mail_token, r.researcher_updates as wanted,
      case when m.kind = ${DIGEST_MAIL_KIND} then (select count(*)::int from ${mailMessages} f where f.digest_id = m.id) end as folded
    from claimed m join ${companies} c on c.id = m.company_id left join ${reports} r on r.id = m.report_id
    order by m.created_at, m.id`,
  );
  return rows.map((m) => ({
    id: m.id,
    companyId: m.company_id,
    kind: m.kind as MailKind,
    recipient: m.recipient,
    userId: m.user_id,
    reportId: m.report_id,
    // A digest's count is read when it is claimed: nothing folds into a claimed digest (mail-digest.ts).
    data: m.folded === null ? (m.data ?? {}) : { ...m.data, count: String(m.folded) },
    attempts: Number(m.attempts),
    lockedUntil: until,
    company: { name: m.name, slug: m.slug, languages: m.languages },
    ...(m.has_report ? { researcher: { pgpKey: m.pgp_key, mailToken: m.mail_token, wanted: m.wanted === true } } : {}),
  }));
}

/** Mails the cap counts (not the `always` kinds) sent to each of these recipients (case-insensitive) since `since`. */
export async function sentSince(db: Db, recipients: readonly string[], since: Date): Promise<Map<string, number>> {
  if (recipients.length === 0) return new Map();
  const lower = [...new Set(recipients.map((r) => r.toLowerCase()))];
  const rows = await db
    .select({ r: sql<string>`lower(${mailMessages.recipient})`, n: sql<number>`count(*)::int` })
    .from(mailMessages)
    .where(
      and(
        eq(mailMessages.state, 'sent'),
        inArray(sql`lower(${mailMessages.recipient})`, lower),
        sql`${mailMessages.finishedAt} > ${since}`,
        notInArray(mailMessages.kind, [...UNCAPPED_MAIL_KINDS]),
      ),
    )
    .groupBy(sql`lower(${mailMessages.recipient})`);
  return new Map(rows.map((x) => [x.r, Number(x.n)]));
}

export type MailOutcome =
  { state: 'sent'; encrypted: boolean } | { state: 'suppressed'; reason: string } | { state: 'failed'; error: string; permanent: boolean };
/** A new-report notice past the cap, decided at `at`: it is counted in the digest of that clock hour. */
export type FoldOutcome = { state: 'folded'; at: Date };

/** Records many sent mails in one statement (the common case of a pass). */
export async function recordSent(db: Db, sent: readonly { id: string; encrypted: boolean }[], now: Date): Promise<void> {
  for (const encrypted of [false, true]) {
    const ids = sent.filter((m) => m.encrypted === encrypted).map((m) => m.id);
    if (ids.length > 0)
      await db
        .update(mailMessages)
        .set({ lockedUntil: null, finishedAt: now, data: null, recipient: finishedRecipient, state: 'sent', lastError: null, encrypted })
        .where(inArray(mailMessages.id, ids));
  }
}

/** Records mails held back for one reason (the recipient limit) in one statement. */
export async function recordSuppressed(db: Db, ids: readonly string[], reason: string, now: Date): Promise<void> {
  if (ids.length > 0)
    await db
      .update(mailMessages)
      .set({ lockedUntil: null, finishedAt: now, data: null, recipient: finishedRecipient, state: 'suppressed', lastError: finishedError(reason) })
      .where(inArray(mailMessages.id, ids));
}

/**
 * Gives back claimed mails that were never attempted (the sender stopped, or the lease left too
 * little time for an attempt): due again at once, the claim's attempt not counted. Only a claim
 * still held (same lease end) is given back.
 */
export async function releaseMail(db: Db, mails: readonly Pick<ClaimedMail, 'id' | 'lockedUntil'>[]): Promise<void> {
  const byLease = new Map<number, string[]>();
  for (const m of mails) byLease.set(m.lockedUntil.getTime(), [...(byLease.get(m.lockedUntil.getTime()) ?? []), m.id]);
  for (const [until, ids] of byLease) {
    await db
      .update(mailMessages)
      .set({ lockedUntil: null, attempts: sql`greatest(${mailMessages.attempts} - 1, 0)` })
      .where(and(inArray(mailMessages.id, ids), eq(mailMessages.state, 'pending'), eq(mailMessages.lockedUntil, new Date(until))));
  }
}

/** A finished erasure notice keeps no address, and no error that could quote it (docs/retention.md "Erasure"). */
const finishedRecipient = sql`case when ${mailMessages.kind} = ${ERASURE_MAIL_KIND} then 'erased researcher' else ${mailMessages.recipient} end`;
const finishedError = (error: string | null) => sql`case when ${mailMessages.kind} = ${ERASURE_MAIL_KIND} then null else ${error}::text end`;

/** Records what happened to a claimed mail. A finished mail keeps no template values. */
export async function recordMailOutcome(
  db: Db,
  m: ClaimedMail,
  out: MailOutcome,
  now: Date,
  retryScale = 1,
): Promise<'sent' | 'suppressed' | 'retry' | 'dead'> {
  const done = { lockedUntil: null, finishedAt: now, data: null, recipient: finishedRecipient };
  if (out.state === 'sent') {
    await db
      .update(mailMessages)
      .set({ ...done, state: 'sent', lastError: null, encrypted: out.encrypted })
      .where(eq(mailMessages.id, m.id));
    return 'sent';
  }
  if (out.state === 'suppressed') {
    await db
      .update(mailMessages)
      .set({ ...done, state: 'suppressed', lastError: finishedError(out.reason) })
      .where(eq(mailMessages.id, m.id));
    return 'suppressed';
  }
  const error = out.error.slice(0, 500);
  const delay = out.permanent ? undefined : MAIL_RETRY_SECONDS[m.attempts - 1];
  if (delay === undefined) {
    await db
      .update(mailMessages)
      .set({ ...done, state: 'dead', lastError: finishedError(error) })
      .where(eq(mailMessages.id, m.id));
    return 'dead';
  }
  await db
    .update(mailMessages)
    .set({ lockedUntil: null, lastError: error, nextAttemptAt: new Date(now.getTime() + delay * 1000 * retryScale) })
    .where(eq(mailMessages.id, m.id));
  return 'retry';
}
