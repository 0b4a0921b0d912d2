import { and, eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { caseParticipants, cases } from '../../db/schema/index.js';
import { actorName, type Context } from '../../kernel/context.js';
import { conflict, validation } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { openCaseOnly } from './case-notices.js';
import { getCaseRow, listParticipantRows, logCaseEvent, touchCase } from './case-store.js';
import { EndEmbargoInput, ProposeEmbargoInput } from './cases.schemas.js';

const today = (now: Date): string => now.toISOString().slice(0, 10);

/**
 * Proposes (or re-proposes) the embargo's end date. Every participant's earlier answer is reset to
 * pending: they agreed to another date. The case version rises, so notices prepared before must be
 * prepared again and carry the new date.
 */
export async function proposeEmbargo(db: Db, ctx: Context, companyId: string, caseId: string, raw: unknown): Promise<void> {
  const { until } = parseInput(ProposeEmbargoInput, raw);
  const now = new Date();
  if (until <= today(now)) throw validation('the embargo must end after today', [{ path: 'until', message: 'must be a day after today' }]);
  await db.transaction(async (tx) => {
    const c = await getCaseRow(tx, companyId, caseId, true);
    openCaseOnly(c);
    if (c.embargoState === 'ended') throw conflict('the embargo has ended; it cannot be proposed again');
    await tx
      .update(cases)
      .set({ embargoState: 'proposed', embargoUntil: until })
      .where(and(eq(cases.companyId, companyId), eq(cases.id, caseId)));
    await tx
      .update(caseParticipants)
      .set({ embargoResponse: 'pending', embargoCounterUntil: null, updatedAt: now })
      .where(and(eq(caseParticipants.companyId, companyId), eq(caseParticipants.caseId, caseId)));
    await touchCase(tx, companyId, caseId, now);
    await logCaseEvent(tx, { companyId, caseId, actor: actorName(ctx), kind: 'embargo_proposed', details: { until }, at: now });
    await recordAudit(tx, ctx, { companyId, action: 'cases.embargo_propose', targetType: 'case', targetId: caseId, details: { until }, at: now });
    await enqueueEvent(tx, companyId, 'case.embargo_changed', { caseId, state: 'proposed', until }, now);
  });
}

/** Ends the embargo early (a flaw exploited in the wild, a leak), with the reason on record. */
export async function endEmbargo(db: Db, ctx: Context, companyId: string, caseId: string, raw: unknown): Promise<void> {
  const { reason } = parseInput(EndEmbargoInput, raw);
  const now = new Date();
  await db.transaction(async (tx) => {
    const c = await getCaseRow(tx, companyId, caseId, true);
    if (c.embargoState !== 'proposed' && c.embargoState !== 'agreed') throw conflict('there is no embargo to end');
    await tx
      .update(cases)
      .set({ embargoState: 'ended', embargoEndedAt: now, embargoEndReason: reason })
      .where(and(eq(cases.companyId, companyId), eq(cases.id, caseId)));
    await touchCase(tx, companyId, caseId, now);
    // The reason is the team's own words about the case: kept in the case, not in the audit row.
    await logCaseEvent(tx, { companyId, caseId, actor: actorName(ctx), kind: 'embargo_ended', details: { until: c.embargoUntil }, at: now });
    await recordAudit(tx, ctx, { companyId, action: 'cases.embargo_end', targetType: 'case', targetId: caseId, at: now });
    await enqueueEvent(tx, companyId, 'case.embargo_changed', { caseId, state: 'ended', endedAt: now.toISOString() }, now);
  });
}

/** After an answer: the embargo is agreed once every notified participant accepted it. */
export async function settleEmbargo(tx: Executor, companyId: string, caseId: string): Promise<'proposed' | 'agreed'> {
  const ps = (await listParticipantRows(tx, companyId, caseId)).filter((p) => p.notifiedAt !== null);
  const agreed = ps.length > 0 && ps.every((p) => p.embargoResponse === 'accepted');
  const state = agreed ? 'agreed' : 'proposed';
  await tx
    .update(cases)
    .set({ embargoState: state })
    .where(and(eq(cases.companyId, companyId), eq(cases.id, caseId), eq(cases.embargoState, agreed ? 'proposed' : 'agreed')));
  return state;
}
