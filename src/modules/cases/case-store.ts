import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { caseEvents, caseParticipants, caseReports, cases } from '../../db/schema/index.js';
import { newId, isUuid } from '../../kernel/ids.js';
import { notFound } from '../../kernel/errors.js';
import type { CaseEventKind, ParticipantView } from './cases.schemas.js';

export type CaseRow = typeof cases.$inferSelect;

/**
 * A case's reports in the order they were added, those added at one moment as the caller listed
 * them (the first supplies the GitHub notice's CVSS vector and the OSV draft). Rows from before
 * `position` was kept have none and follow, by id, as they always did.
 */
export const CASE_REPORT_ORDER = [asc(caseReports.addedAt), asc(caseReports.position), asc(caseReports.reportId)] as const;
export type ParticipantRow = typeof caseParticipants.$inferSelect;

/** The company's case, locked for update when asked; NOT_FOUND for any other company's id. */
export async function getCaseRow(db: Executor, companyId: string, caseId: string, forUpdate = false): Promise<CaseRow> {
  if (!isUuid(caseId)) throw notFound('case');
  const q = db
    .select()
    .from(cases)
    .where(and(eq(cases.companyId, companyId), eq(cases.id, caseId)));
  const [row] = forUpdate ? await q.for('update') : await q;
  if (!row) throw notFound('case');
  return row;
}

export async function getParticipantRow(db: Executor, companyId: string, caseId: string, participantId: string): Promise<ParticipantRow> {
  if (!isUuid(participantId)) throw notFound('participant');
  const [row] = await db
    .select()
    .from(caseParticipants)
    .where(and(eq(caseParticipants.companyId, companyId), eq(caseParticipants.caseId, caseId), eq(caseParticipants.id, participantId)));
  if (!row) throw notFound('participant');
  return row;
}

export async function listParticipantRows(db: Executor, companyId: string, caseId: string): Promise<ParticipantRow[]> {
  return db
    .select()
    .from(caseParticipants)
    .where(and(eq(caseParticipants.companyId, companyId), eq(caseParticipants.caseId, caseId)))
    .orderBy(asc(caseParticipants.createdAt), asc(caseParticipants.id));
}

/** Marks a change a prepared notice depends on: the version rises, so older preparations go stale. */
export async function touchCase(tx: Executor, companyId: string, caseId: string, now: Date): Promise<void> {
  await tx
    .update(cases)
    .set({ version: sql`${cases.version} + 1`, updatedAt: now })
    .where(and(eq(cases.companyId, companyId), eq(cases.id, caseId)));
}

/** Appends one entry to the case log (never report or message text: ids, dates and choices). */
export async function logCaseEvent(
  tx: Executor,
  e: { companyId: string; caseId: string; participantId?: string | null; actor: string; kind: CaseEventKind; details?: Record<string, unknown>; at: Date },
): Promise<void> {
  await tx.insert(caseEvents).values({
    id: newId(),
    companyId: e.companyId,
    caseId: e.caseId,
    participantId: e.participantId ?? null,
    actor: e.actor,
    kind: e.kind,
    details: e.details ?? {},
    createdAt: e.at,
  });
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toParticipantView(p: ParticipantRow): ParticipantView {
  return {
    id: p.id,
    role: p.role as ParticipantView['role'],
    name: p.name,
    channel: p.channel as ParticipantView['channel'],
    address: p.address,
    encrypted: p.pgpKey !== null,
    status: p.status as ParticipantView['status'],
    notifiedAt: iso(p.notifiedAt),
    acknowledgedAt: iso(p.acknowledgedAt),
    remindedAt: iso(p.remindedAt),
    fixAvailableAt: iso(p.fixAvailableAt),
    embargoResponse: p.embargoResponse as ParticipantView['embargoResponse'],
    embargoCounterUntil: p.embargoCounterUntil,
    advisory: p.advisoryId ? { ghsaId: p.advisoryId, url: p.advisoryUrl } : null,
  };
}

export const embargoView = (c: CaseRow) => ({
  state: c.embargoState as 'none' | 'proposed' | 'agreed' | 'ended',
  until: c.embargoUntil,
  endedAt: iso(c.embargoEndedAt),
  endReason: c.embargoEndReason,
});
