import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { caseEvents, caseParticipants, caseReports, cases } from '../../db/schema/index.js';
import { CASE_REPORT_ORDER, embargoView, getCaseRow, listParticipantRows, toParticipantView } from './case-store.js';
import type { CaseSummaryView, CaseView } from './cases.schemas.js';

/** One case of the company with its participants, reports and log (NOT_FOUND for another company's). */
export async function getCase(db: Executor, companyId: string, caseId: string): Promise<CaseView> {
  const c = await getCaseRow(db, companyId, caseId);
  const [participants, reportRows, log] = await Promise.all([
    listParticipantRows(db, companyId, caseId),
    db
      .select({ reportId: caseReports.reportId })
      .from(caseReports)
      .where(and(eq(caseReports.companyId, companyId), eq(caseReports.caseId, caseId)))
      .orderBy(...CASE_REPORT_ORDER),
    db
      .select()
      .from(caseEvents)
      .where(and(eq(caseEvents.companyId, companyId), eq(caseEvents.caseId, caseId)))
      .orderBy(asc(caseEvents.createdAt), asc(caseEvents.id)),
  ]);
  return {
    id: c.id,
    title: c.title,
    summary: c.summary,
    origin: c.origin as CaseView['origin'],
    originRef: c.originRef,
    state: c.state as CaseView['state'],
    embargo: embargoView(c),
    version: c.version,
    reportIds: reportRows.map((r) => r.reportId),
    participants: participants.map(toParticipantView),
    log: log.map((e) => ({ id: e.id, kind: e.kind, actor: e.actor, participantId: e.participantId, details: e.details, createdAt: e.createdAt.toISOString() })),
    coordinatorSuggestedAt: c.coordinatorSuggestedAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

/** The company's cases, most recently changed first; `reportId` narrows to the cases holding that report. */
export async function listCases(db: Executor, companyId: string, opts: { reportId?: string } = {}): Promise<CaseSummaryView[]> {
  const holding = opts.reportId
    ? sql`and ${cases.id} in (select ${caseReports.caseId} from ${caseReports} where ${caseReports.companyId} = ${companyId} and ${caseReports.reportId} = ${opts.reportId})`
    : sql``;
  const rows = await db
    .select({
      c: cases,
      participants: sql<number>`(select count(*)::int from ${caseParticipants} p where p.case_id = ${cases.id})`,
    })
    .from(cases)
    .where(sql`${cases.companyId} = ${companyId} ${holding}`)
    .orderBy(desc(cases.updatedAt), desc(cases.id))
    .limit(500);
  return rows.map(({ c, participants }) => ({
    id: c.id,
    title: c.title,
    origin: c.origin as CaseSummaryView['origin'],
    state: c.state as CaseSummaryView['state'],
    embargo: embargoView(c),
    participants: Number(participants),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  }));
}
