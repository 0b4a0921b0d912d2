import { and, asc, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { caseNotices, caseParticipants, cases } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';
import type { Context } from '../../kernel/context.js';
import { conflict, notFound } from '../../kernel/errors.js';
import { isUuid, safeEqual, sha256Hex } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getCompanyById } from '../companies/get-company.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { settleEmbargo } from './case-embargo.js';
import { insertCaseMessage, listCaseMessages } from './case-messages.js';
import { checkMessageParts, type PreparedAttachment, prepareJsonAttachments } from './case-attachments.js';
import { fixesForParticipant } from './case-fix-rows.js';
import { embargoView, getCaseRow, logCaseEvent, type ParticipantRow } from './case-store.js';
import { type CaseEventKind, type CaseMessageView, EmbargoResponseInput, type SharedCaseView, SharedMessageInput } from './cases.schemas.js';

/**
 * The participant's side of a case: what one participant may see and do, and nothing else. A
 * participant is reached in one of two ways, each its own door (ADR 0009: both run as system, since
 * the case belongs to another company than the caller, or to no caller at all):
 * - `byToken`: the private participant link (a random token; only its SHA-256 is stored, and the
 *   match is re-checked in constant time);
 * - `inbound`: another company on this instance that the case notified (channel cradle), signed in
 *   to its own dashboard or holding its own API key.
 * Every verb below takes the participant row such a door returned.
 */
export type Door = { kind: 'link' } | { kind: 'company'; companyId: string };

export async function participantByToken(db: Db, token: string): Promise<ParticipantRow> {
  if (!/^[0-9a-f]{64}$/.test(token)) throw notFound('case');
  const digest = sha256Hex(token);
  const [p] = await asSystem(() => db.select().from(caseParticipants).where(eq(caseParticipants.linkTokenDigest, digest)).limit(1));
  if (!p?.linkTokenDigest || !safeEqual(p.linkTokenDigest, digest)) throw notFound('case');
  return p;
}

/** The participant row standing for `peerCompanyId` in another company's case; NOT_FOUND for any other. */
export async function inboundParticipant(db: Db, peerCompanyId: string, participantId: string): Promise<ParticipantRow> {
  if (!isUuid(participantId)) throw notFound('inbound case');
  const [p] = await asSystem(() =>
    db
      .select()
      .from(caseParticipants)
      .where(and(eq(caseParticipants.id, participantId), eq(caseParticipants.peerCompanyId, peerCompanyId)))
      .limit(1),
  );
  // Only once notified does the case reach the other company.
  if (!p || p.notifiedAt === null) throw notFound('inbound case');
  return p;
}

/** The inbound participation that filed `reportId` into `peerCompanyId`'s inbox, if any. */
export async function inboundForReport(db: Db, peerCompanyId: string, reportId: string): Promise<ParticipantRow | undefined> {
  if (!isUuid(reportId)) return undefined;
  const [p] = await asSystem(() =>
    db
      .select()
      .from(caseParticipants)
      .where(and(eq(caseParticipants.peerReportId, reportId), eq(caseParticipants.peerCompanyId, peerCompanyId)))
      .limit(1),
  );
  return p;
}

/** For a report page: the company whose case filed this report into `peerCompanyId`'s inbox, if any. */
export async function inboundSource(db: Db, peerCompanyId: string, reportId: string): Promise<{ participantId: string; from: string } | undefined> {
  const p = await inboundForReport(db, peerCompanyId, reportId);
  if (!p) return undefined;
  const from = await asSystem(() => getCompanyById(db, p.companyId));
  return { participantId: p.id, from: from.name };
}

export type InboundSummary = {
  participantId: string;
  from: string;
  title: string;
  status: string;
  embargo: ReturnType<typeof embargoView>;
  peerReportId: string | null;
  notifiedAt: string;
};

/** The cases of other companies on this instance that notified `peerCompanyId`, newest first. */
export async function listInbound(db: Db, peerCompanyId: string): Promise<InboundSummary[]> {
  const rows = await asSystem(() =>
    db
      .select({ p: caseParticipants, c: cases })
      .from(caseParticipants)
      .innerJoin(cases, eq(cases.id, caseParticipants.caseId))
      .where(eq(caseParticipants.peerCompanyId, peerCompanyId))
      .orderBy(desc(caseParticipants.notifiedAt))
      .limit(500),
  );
  const out: InboundSummary[] = [];
  for (const { p, c } of rows) {
    if (!p.notifiedAt) continue;
    const from = await asSystem(() => getCompanyById(db, c.companyId));
    out.push({
      participantId: p.id,
      from: from.name,
      title: c.title,
      status: p.status,
      embargo: embargoView(c),
      peerReportId: p.peerReportId,
      notifiedAt: p.notifiedAt.toISOString(),
    });
  }
  return out;
}

/** The thread shared with one participant: the notices sent to it, its messages, the embargo and its own answer. */
export async function sharedCase(db: Db, p: ParticipantRow): Promise<SharedCaseView> {
  return asSystem(async () => {
    const c = await getCaseRow(db, p.companyId, p.caseId);
    const company = await getCompanyById(db, p.companyId);
    const notices = await db
      .select()
      .from(caseNotices)
      .where(and(eq(caseNotices.companyId, p.companyId), eq(caseNotices.participantId, p.id), eq(caseNotices.state, 'sent')))
      .orderBy(asc(caseNotices.sentAt));
    const messages = await listCaseMessages(db, p.companyId, p.caseId, p.id);
    const fixes = await fixesForParticipant(db, p);
    return {
      participantId: p.id,
      from: company.name,
      title: c.title,
      role: p.role as SharedCaseView['role'],
      status: p.status as SharedCaseView['status'],
      acknowledgedAt: p.acknowledgedAt?.toISOString() ?? null,
      embargo: embargoView(c),
      embargoResponse: p.embargoResponse as SharedCaseView['embargoResponse'],
      embargoCounterUntil: p.embargoCounterUntil,
      notices: notices.map((n) => ({ subject: n.subject, body: n.sharedBody ?? n.body, sentAt: (n.sentAt ?? n.preparedAt).toISOString() })),
      messages,
      fixes,
      peerReportId: p.peerReportId,
    };
  });
}

const actorOf = (p: ParticipantRow, door: Door): string => (door.kind === 'company' ? `company:${door.companyId}` : `participant:${p.id}`);

/**
 * Runs one participant answer in a system transaction over the case's company: the row is read
 * again under the case's lock, the answer applied, logged in the case, audited in the case's
 * company (and, for a company on this instance, in its own), and sent as `case.participant_updated`.
 */
async function answer(
  db: Db,
  ctx: Context,
  p: ParticipantRow,
  door: Door,
  change: Extract<CaseEventKind, 'acknowledged' | 'embargo_accepted' | 'embargo_countered'>,
  apply: (fresh: ParticipantRow, now: Date) => Partial<ParticipantRow>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const now = new Date();
  await asSystem(() =>
    db.transaction(async (tx) => {
      const c = await getCaseRow(tx, p.companyId, p.caseId, true);
      if (c.state !== 'open') throw conflict('the case is closed');
      const [fresh] = await tx.select().from(caseParticipants).where(eq(caseParticipants.id, p.id));
      if (!fresh) throw notFound('case');
      await tx
        .update(caseParticipants)
        .set({ ...apply(fresh, now), updatedAt: now })
        .where(eq(caseParticipants.id, p.id));
      if (change.startsWith('embargo_')) await settleEmbargo(tx, p.companyId, p.caseId);
      await logCaseEvent(tx, { companyId: p.companyId, caseId: p.caseId, participantId: p.id, actor: actorOf(p, door), kind: change, details: extra, at: now });
      await recordAudit(tx, ctx, {
        companyId: p.companyId,
        action: `cases.participant_${change}`,
        targetType: 'case',
        targetId: p.caseId,
        details: { participantId: p.id, via: door.kind, ...extra },
        at: now,
      });
      if (door.kind === 'company')
        await recordAudit(tx, ctx, {
          companyId: door.companyId,
          action: `cases.inbound_${change}`,
          targetType: 'participation',
          targetId: p.id,
          details: extra,
          at: now,
        });
      await enqueueEvent(
        tx,
        p.companyId,
        'case.participant_updated',
        { caseId: p.caseId, participantId: p.id, participantName: p.name, change, ...extra },
        now,
      );
    }),
  );
}

/** The participant acknowledges the notice: its status becomes open (CSAF: the vendor knows). */
export async function acknowledgeCase(db: Db, ctx: Context, p: ParticipantRow, door: Door): Promise<void> {
  await answer(db, ctx, p, door, 'acknowledged', (f, now) => ({
    acknowledgedAt: f.acknowledgedAt ?? now,
    status: f.status === 'not_contacted' || f.status === 'contact_attempted' ? 'open' : f.status,
  }));
}

/** The participant accepts the proposed embargo date or proposes another. */
export async function answerEmbargo(db: Db, ctx: Context, p: ParticipantRow, door: Door, raw: unknown): Promise<void> {
  const input = parseInput(EmbargoResponseInput, raw);
  const c = await asSystem(() => getCaseRow(db, p.companyId, p.caseId));
  if (c.embargoState !== 'proposed' && c.embargoState !== 'agreed') throw conflict('no embargo is proposed on this case');
  if (input.response === 'accept') {
    await answer(db, ctx, p, door, 'embargo_accepted', () => ({ embargoResponse: 'accepted', embargoCounterUntil: null }), { until: c.embargoUntil });
  } else {
    const until = input.until ?? '';
    await answer(db, ctx, p, door, 'embargo_countered', () => ({ embargoResponse: 'countered', embargoCounterUntil: until }), { until });
  }
}

/**
 * The participant writes into its shared thread (untrusted text, shown escaped), with files sent as
 * base64 in `raw` (JSON) or already read from a form (`uploaded`, prepareAttachment).
 */
export async function postSharedMessage(
  db: Db,
  ctx: Context,
  p: ParticipantRow,
  raw: unknown,
  uploaded: readonly PreparedAttachment[] = [],
): Promise<CaseMessageView> {
  const { body, attachments } = parseInput(SharedMessageInput, raw);
  const files = [...prepareJsonAttachments(attachments), ...uploaded];
  checkMessageParts(body, files);
  const now = new Date();
  return asSystem(() =>
    db.transaction(async (tx) => {
      await getCaseRow(tx, p.companyId, p.caseId, true);
      return insertCaseMessage(tx, ctx, p, 'participant', body, now, files);
    }),
  );
}
