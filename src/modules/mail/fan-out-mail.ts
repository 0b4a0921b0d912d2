import { and, eq, inArray, isNotNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { mailMessages, mailPreferences, reports, users } from '../../db/schema/index.js';
import { newId } from '../../kernel/ids.js';
import { isSafeMailbox } from './mail-header.js';
import { type MailKind, type ResearcherMailKind, type TeamMailKind, teamMailDefault } from './mail-kinds.js';
import type { MailData } from './mail-templates.js';

export type OutboxEvent = { id: string; companyId: string; type: string; payload: { data?: Record<string, unknown> } };

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

/** The fields of a mail's template, picked by name from an event's data (never report text). */
function pick(data: Record<string, unknown>, names: Record<string, string>): MailData {
  const out: MailData = {};
  for (const [to, from] of Object.entries(names)) {
    const v = str(data[from]);
    if (v !== undefined) out[to] = v.slice(0, 200);
  }
  return out;
}

type Wanted = { audience: 'team'; kind: TeamMailKind; data: MailData } | { audience: 'researcher'; kind: ResearcherMailKind; data: MailData; reportId: string };

/** Which mail an event means, if any. */
function mailFor(ev: OutboxEvent): Wanted | undefined {
  const d = ev.payload.data ?? {};
  const id = str(d.submissionId);
  switch (ev.type) {
    case 'vulnerability.reported':
      return {
        audience: 'team',
        kind: 'report.new',
        data: pick(d, { submissionId: 'submissionId', product: 'productName', type: 'vulnerabilityType', source: 'source' }),
      };
    case 'vulnerability.message':
      if (d.author === 'researcher') return { audience: 'team', kind: 'report.message', data: pick(d, { submissionId: 'submissionId' }) };
      return id ? { audience: 'researcher', kind: 'researcher.message', data: pick(d, { submissionId: 'submissionId' }), reportId: id } : undefined;
    case 'vulnerability.status_changed':
      return id
        ? { audience: 'researcher', kind: 'researcher.status', data: pick(d, { submissionId: 'submissionId', status: 'to' }), reportId: id }
        : undefined;
    case 'vulnerability.response_overdue':
      return { audience: 'team', kind: 'report.response_overdue', data: pick(d, { submissionId: 'submissionId', clock: 'clock', dueAt: 'dueAt' }) };
    case 'article14.deadline_approaching':
      return { audience: 'team', kind: 'article14.approaching', data: pick(d, { submissionId: 'submissionId', stage: 'stage', dueAt: 'dueAt' }) };
    case 'article14.overdue':
      return { audience: 'team', kind: 'article14.overdue', data: pick(d, { submissionId: 'submissionId', stage: 'stage', dueAt: 'dueAt' }) };
    case 'vulnerability.kev_added':
    case 'vulnerability.matched': {
      // Public advisory ids and the product's identifier: nothing of a report travels.
      const matches = Array.isArray(d.matches) ? (d.matches as { vulnerability?: unknown; kev?: unknown }[]) : [];
      const kev = ev.type === 'vulnerability.kev_added' ? matches : matches.filter((m) => m.kev === true);
      const names = [...new Set(kev.map((m) => str(m.vulnerability)).filter((v): v is string => v !== undefined))];
      if (names.length === 0) return undefined;
      const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', ');
      return {
        audience: 'team',
        kind: 'vulnerability.kev',
        data: { product: (str(d.productIdentifier) ?? '').slice(0, 200), vulnerabilities: shown.slice(0, 200) },
      };
    }
    case 'api_key.expiring':
      return { audience: 'team', kind: 'api_key.expiring', data: pick(d, { keyName: 'name', keyHint: 'keyHint', expiresAt: 'expiresAt' }) };
    case 'case.participant_updated':
      // A participant's word the team waits for; the participant's name is theirs to see, never message text.
      return d.change === 'acknowledged' || d.change === 'embargo_accepted' || d.change === 'embargo_countered'
        ? { audience: 'team', kind: 'case.update', data: pick(d, { caseId: 'caseId', change: 'change', participant: 'participantName', until: 'until' }) }
        : undefined;
    case 'webhook.delivery_dead_lettered':
      return { audience: 'team', kind: 'webhook.dead_lettered', data: pick(d, { webhookId: 'webhookId', eventType: 'eventType' }) };
    default:
      return undefined;
  }
}

type Row = typeof mailMessages.$inferInsert;

const row = (ev: OutboxEvent, kind: MailKind, recipient: string, data: MailData, now: Date, who: { userId?: string; reportId?: string }): Row => ({
  id: newId(),
  companyId: ev.companyId,
  kind,
  recipient,
  userId: who.userId ?? null,
  reportId: who.reportId ?? null,
  data,
  dedupeKey: `${ev.id}:${kind}:${recipient.toLowerCase()}`,
  nextAttemptAt: now,
  createdAt: now,
});

/**
 * Turns dispatched outbox events into queued mail, in the dispatcher's transaction: an event is
 * marked dispatched exactly when its mail is queued (the same outbox as webhooks, issue 21), and
 * the dedupe key makes a second dispatch of one event queue nothing. Team members get the kinds
 * they chose (else their role's default); a researcher only what their report opted into.
 */
export async function fanOutMail(tx: Executor, events: readonly OutboxEvent[], now: Date): Promise<number> {
  const wanted = events.flatMap((ev) => {
    const w = mailFor(ev);
    return w ? [{ ev, w }] : [];
  });
  if (wanted.length === 0) return 0;
  const companyIds = [...new Set(wanted.filter((x) => x.w.audience === 'team').map((x) => x.ev.companyId))];
  const reportIds = [...new Set(wanted.flatMap((x) => (x.w.audience === 'researcher' ? [x.w.reportId] : [])))];
  const [members, prefs, researchers] = await Promise.all([
    companyIds.length
      ? tx.select({ id: users.id, companyId: users.companyId, email: users.email, role: users.role }).from(users).where(inArray(users.companyId, companyIds))
      : [],
    companyIds.length ? tx.select().from(mailPreferences).where(inArray(mailPreferences.companyId, companyIds)) : [],
    reportIds.length
      ? tx
          .select({ id: reports.id, companyId: reports.companyId, email: reports.contactEmail })
          .from(reports)
          // Only an address its owner confirmed from the first mail (issue 32, finding 4).
          .where(and(inArray(reports.id, reportIds), eq(reports.researcherUpdates, true), isNotNull(reports.researcherConfirmedAt)))
      : [],
  ]);
  const choice = new Map(prefs.map((p) => [`${p.userId}:${p.kind}`, p.enabled]));
  const rows: Row[] = [];
  for (const { ev, w } of wanted) {
    if (w.audience === 'team') {
      for (const m of members) {
        if (m.companyId !== ev.companyId || !isSafeMailbox(m.email)) continue;
        if (choice.get(`${m.id}:${w.kind}`) ?? teamMailDefault(w.kind, m.role)) rows.push(row(ev, w.kind, m.email, w.data, now, { userId: m.id }));
      }
    } else {
      const r = researchers.find((x) => x.id === w.reportId && x.companyId === ev.companyId);
      if (r?.email && isSafeMailbox(r.email)) rows.push(row(ev, w.kind, r.email, w.data, now, { reportId: r.id }));
    }
  }
  for (let i = 0; i < rows.length; i += 500)
    await tx
      .insert(mailMessages)
      .values(rows.slice(i, i + 500))
      .onConflictDoNothing();
  return rows.length;
}
