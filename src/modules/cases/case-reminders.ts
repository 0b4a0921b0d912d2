import { and, eq, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { caseParticipants, cases } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';
import type { Context } from '../../kernel/context.js';
import { getCompanyById } from '../companies/get-company.js';
import { queueMail } from '../mail/mail-queue.js';
import { caseReminderDaysOf } from '../upstream/upstream-settings.js';
import { insertCaseMessage } from './case-messages.js';
import { type CaseRow, logCaseEvent, type ParticipantRow } from './case-store.js';
import { noticeSubject } from './notice-text.js';

const DAY_MS = 86_400_000;
const SYSTEM: Context = { actor: { type: 'system' } };

/** The channels a reminder travels on: a GitHub advisory's own state is read back instead (github-readback.ts). */
const REMINDED_CHANNELS = ['email', 'cradle'] as const;

/**
 * The reminder's text: who writes, since when, and where to answer. Never the case title or report
 * text: the reminder goes in clear even to a participant with an OpenPGP key.
 */
export function reminderText(companyName: string, p: ParticipantRow, days: number): string {
  const since = p.notifiedAt ? p.notifiedAt.toISOString().slice(0, 10) : '';
  const where =
    p.channel === 'email'
      ? 'Please acknowledge it through the private link in that notice (it still works), or reply to the sender.'
      : 'Please acknowledge it on the case notified to you (Cases, "Cases notified to you").';
  return [
    `${companyName} notified you of a vulnerability on ${since} as part of a coordinated disclosure and has had no acknowledgement in ${days} days.`,
    where,
  ].join('\n');
}

export type ReminderPass = { reminded: number; suggested: number };

/**
 * The `cases.reminders` job (docs/coordination.md "Reminders and escalation"): every notified
 * participant of an open case that has not acknowledged within its company's period gets one
 * reminder per notice, through its channel (a mail without report text, or a message in the
 * thread a company on this instance sees); after two periods the case suggests bringing in a
 * coordinator, once. Each step is a compare-and-set, so instances may race; each is in the case log.
 */
export async function remindSilentParticipants(db: Db, now = new Date()): Promise<ReminderPass> {
  return asSystem(async () => {
    // No company's period is shorter than a day: anything notified since then cannot be due.
    const candidates = await db
      .select({ p: caseParticipants })
      .from(caseParticipants)
      .innerJoin(cases, eq(cases.id, caseParticipants.caseId))
      .where(
        and(
          eq(cases.state, 'open'),
          inArray(caseParticipants.channel, [...REMINDED_CHANNELS]),
          eq(caseParticipants.status, 'contact_attempted'),
          isNull(caseParticipants.acknowledgedAt),
          isNotNull(caseParticipants.notifiedAt),
          lt(caseParticipants.notifiedAt, new Date(now.getTime() - DAY_MS)),
        ),
      )
      .limit(500);
    const days = await caseReminderDaysOf(db, [...new Set(candidates.map((c) => c.p.companyId))]);
    const out: ReminderPass = { reminded: 0, suggested: 0 };
    for (const { p } of candidates) {
      const period = days.get(p.companyId) ?? 7;
      const silentMs = now.getTime() - (p.notifiedAt as Date).getTime();
      if (silentMs < period * DAY_MS) continue;
      const unreminded = p.remindedAt === null || p.remindedAt < (p.notifiedAt as Date);
      if (unreminded && (await remind(db, p, period, now))) out.reminded++;
      if (silentMs >= 2 * period * DAY_MS && (await suggestCoordinator(db, p, period, now))) out.suggested++;
    }
    return out;
  });
}

/** Sends one participant's reminder unless another pass did since it was read. */
async function remind(db: Db, p: ParticipantRow, days: number, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(caseParticipants)
      .set({ remindedAt: now })
      .where(
        and(
          eq(caseParticipants.id, p.id),
          isNull(caseParticipants.acknowledgedAt),
          or(isNull(caseParticipants.remindedAt), lt(caseParticipants.remindedAt, sql`${caseParticipants.notifiedAt}`)),
        ),
      )
      .returning();
    if (!claimed) return false;
    const company = await getCompanyById(tx, p.companyId);
    const text = reminderText(company.name, claimed, days);
    if (p.channel === 'email') {
      const c = await caseRow(tx, p);
      await queueMail(tx, {
        companyId: p.companyId,
        kind: 'case.notice',
        recipient: p.address ?? '',
        data: { subject: `Reminder: ${noticeSubject(company.name, c)}`, text, encrypted: 'no', caseId: p.caseId },
        now,
      });
    } else {
      await insertCaseMessage(tx, SYSTEM, claimed, 'company', text, now);
    }
    await logCaseEvent(tx, {
      companyId: p.companyId,
      caseId: p.caseId,
      participantId: p.id,
      actor: 'system',
      kind: 'reminder_sent',
      details: { channel: p.channel, days, notifiedAt: p.notifiedAt?.toISOString() ?? null },
      at: now,
    });
    return true;
  });
}

/** Marks the case as one that wants a coordinator (once per case), naming the silent participant. */
async function suggestCoordinator(db: Db, p: ParticipantRow, days: number, now: Date): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [marked] = await tx
      .update(cases)
      .set({ coordinatorSuggestedAt: now })
      .where(and(eq(cases.id, p.caseId), isNull(cases.coordinatorSuggestedAt)))
      .returning({ id: cases.id });
    if (!marked) return false;
    await logCaseEvent(tx, {
      companyId: p.companyId,
      caseId: p.caseId,
      participantId: p.id,
      actor: 'system',
      kind: 'coordinator_suggested',
      details: { silentDays: 2 * days, role: p.role },
      at: now,
    });
    return true;
  });
}

async function caseRow(tx: Executor, p: ParticipantRow): Promise<CaseRow> {
  const [c] = await tx.select().from(cases).where(eq(cases.id, p.caseId));
  if (!c) throw new Error('participant without its case');
  return c;
}
