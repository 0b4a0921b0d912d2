import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { caseNotices, caseReports } from '../../db/schema/index.js';
import { actorName, type Context } from '../../kernel/context.js';
import { conflict, notFound, validation } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getCompanyById } from '../companies/get-company.js';
import { getReportRow, type ReportRow } from '../reports/get-report.js';
import { channelOf } from './case-channels.js';
import { CASE_REPORT_ORDER, type CaseRow, getCaseRow, listParticipantRows, logCaseEvent } from './case-store.js';
import { type NoticeView, PrepareNoticesInput } from './cases.schemas.js';
import { buildNotice } from './notice-text.js';
import { caseComponents, githubNoticeText } from './github-notice.js';
import { listCaseFixRows, seesFixes } from './case-fix-rows.js';

export type NoticeRow = typeof caseNotices.$inferSelect;

export const toNoticeView = (n: NoticeRow): NoticeView => ({
  id: n.id,
  participantId: n.participantId,
  channel: n.channel as NoticeView['channel'],
  recipient: n.recipient,
  subject: n.subject,
  body: n.body,
  sharedBody: n.sharedBody,
  encrypted: n.encrypted === 'yes',
  state: n.state as NoticeView['state'],
  failure: n.failure,
  attempts: n.attempts,
  caseVersion: n.caseVersion,
  preparedAt: n.preparedAt.toISOString(),
  sentAt: n.sentAt ? n.sentAt.toISOString() : null,
});

/** The reports a case holds, as rows of the company (the notices quote them). */
export async function caseReportRows(db: Executor, companyId: string, caseId: string): Promise<ReportRow[]> {
  const ids = await db
    .select({ id: caseReports.reportId })
    .from(caseReports)
    .where(and(eq(caseReports.companyId, companyId), eq(caseReports.caseId, caseId)))
    .orderBy(...CASE_REPORT_ORDER);
  const rows: ReportRow[] = [];
  for (const { id } of ids) rows.push(await getReportRow(db, companyId, id));
  return rows;
}

export const openCaseOnly = (c: CaseRow): void => {
  if (c.state !== 'open') throw conflict('the case is closed');
};

/**
 * Step one of notifying: builds each chosen participant's notice exactly as it will go out and
 * stores it as prepared at the case's current version; nothing is sent. A participant's earlier
 * unsent preparation is superseded. By default every participant not yet notified whose channel
 * can carry a notice; a participant named explicitly whose channel cannot is refused by name.
 */
export async function prepareNotices(db: Db, ctx: Context, companyId: string, caseId: string, raw: unknown): Promise<NoticeView[]> {
  const input = parseInput(PrepareNoticesInput, raw ?? {});
  const c = await getCaseRow(db, companyId, caseId);
  openCaseOnly(c);
  const all = await listParticipantRows(db, companyId, caseId);
  let chosen = all.filter((p) => p.notifiedAt === null && (p.channel === 'cradle' || p.channel === 'email' || p.channel === 'github'));
  if (input.participantIds) {
    const wanted = new Set(input.participantIds);
    chosen = all.filter((p) => wanted.has(p.id));
    if (chosen.length !== wanted.size) throw notFound('participant');
  }
  if (chosen.length === 0) throw validation('no participant to notify: add one with an e-mail address or a company slug, or name the participants', []);
  const company = await getCompanyById(db, companyId);
  const reports = await caseReportRows(db, companyId, caseId);
  const allFixes = await listCaseFixRows(db, companyId, caseId);
  const components = chosen.some((p) => p.channel === 'github') ? await caseComponents(db, c, reports) : [];
  const plans = [];
  for (const p of chosen) plans.push({ p, plan: await channelOf(p).plan(p) });
  const now = new Date();
  const rows = plans.map(({ p, plan }) => {
    // Only an upstream maintainer is shown the fixes; only encrypted mail carries them (docs/coordination.md "Sharing the fix").
    const fixes = seesFixes(p) ? allFixes : [];
    const text =
      p.channel === 'github'
        ? githubNoticeText({ companyName: company.name, c, p, reports, components })
        : buildNotice({
            companyName: company.name,
            c,
            p,
            reports,
            withText: plan.withText,
            linked: plan.linked,
            fixes,
            fixesInline: p.channel === 'email' && plan.encrypted,
          });
    const shared = plan.withText ? null : buildNotice({ companyName: company.name, c, p, reports, withText: true, linked: false, fixes }).body;
    return {
      id: newId(),
      companyId,
      caseId,
      participantId: p.id,
      caseVersion: c.version,
      channel: p.channel,
      recipient: plan.recipient,
      subject: text.subject,
      body: text.body,
      sharedBody: shared,
      encrypted: plan.encrypted ? 'yes' : 'no',
      state: 'prepared',
      preparedBy: actorName(ctx),
      preparedAt: now,
    };
  });
  await db.transaction(async (tx) => {
    const locked = await getCaseRow(tx, companyId, caseId, true);
    if (locked.version !== c.version) throw conflict('the case changed while the notices were prepared: prepare again');
    await tx
      .update(caseNotices)
      .set({ state: 'superseded' })
      .where(
        and(
          eq(caseNotices.companyId, companyId),
          eq(caseNotices.caseId, caseId),
          eq(caseNotices.state, 'prepared'),
          inArray(
            caseNotices.participantId,
            rows.map((r) => r.participantId),
          ),
        ),
      );
    await tx.insert(caseNotices).values(rows);
    await logCaseEvent(tx, { companyId, caseId, actor: actorName(ctx), kind: 'notice_prepared', details: { noticeIds: rows.map((r) => r.id) }, at: now });
    await recordAudit(tx, ctx, { companyId, action: 'cases.notice_prepare', targetType: 'case', targetId: caseId, details: { notices: rows.length }, at: now });
  });
  return rows.map((r) => toNoticeView({ ...r, sentAt: null, sentBy: null, failure: null, attempts: 0, nextAttemptAt: null, leaseUntil: null }));
}

/** The company's notices of a case, newest first. */
export async function listNotices(db: Executor, companyId: string, caseId: string): Promise<NoticeView[]> {
  await getCaseRow(db, companyId, caseId);
  const rows = await db
    .select()
    .from(caseNotices)
    .where(and(eq(caseNotices.companyId, companyId), eq(caseNotices.caseId, caseId)))
    .orderBy(asc(caseNotices.preparedAt), asc(caseNotices.id));
  return rows.map(toNoticeView).reverse();
}
