import { and, eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { reportEvents, reports, users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode, notFound, validation } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getReportRow, type ReportView, toReportView } from './get-report.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';

/** How far ahead of our clock a reported time may be: callers' clocks drift a little. */
const CLOCK_SKEW_MS = 5 * 60_000;
import { scoreCvss } from './cvss.js';
import { isReportState, transitionRefusal } from './lifecycle.js';
import { UpdateReportInput } from './lifecycle.schemas.js';

const dateOrNull = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : new Date(v));

/** A column's value for comparison: times by their instant, lists as sets. */
const comparable = (v: unknown): unknown =>
  v instanceof Date ? v.getTime() : Array.isArray(v) ? JSON.stringify([...(v as unknown[])].map(String).sort()) : (v ?? null);

/**
 * Applies a status transition and/or triage facts to one report, in one transaction with its
 * history entry, audit row and (on a state change) a `vulnerability.status_changed` event.
 * Illegal transition: CONFLICT (409) naming the allowed ones. Another company's report: NOT_FOUND.
 */
export async function updateReport(db: Db, ctx: Context, companyId: string, id: string, raw: unknown): Promise<ReportView> {
  const input = parseInput(UpdateReportInput, raw);
  if (Object.keys(input).length === 0) throw validation('nothing to update: give a status or at least one triage fact');
  return db.transaction((tx) => applyReportUpdate(tx, ctx, companyId, id, input));
}

/** The body of `updateReport` inside the caller's transaction (another verb's own step, such as publishing an advisory). */
export async function applyReportUpdate(tx: Executor, ctx: Context, companyId: string, id: string, input: UpdateReportInput): Promise<ReportView> {
  const score = input.cvssVector ? scoreCvss(input.cvssVector) : undefined;
  {
    const cur = await getReportRow(tx, companyId, id, true);
    const from = cur.status;
    const duplicateOf = input.duplicateOf === undefined ? cur.duplicateOf : input.duplicateOf;
    if (input.status !== undefined && input.status !== from) {
      const why = isReportState(from) ? transitionRefusal(from, input.status, duplicateOf) : undefined;
      if (why) throw new AppError(ErrorCode.CONFLICT, why);
    }
    if (input.duplicateOf) {
      if (input.duplicateOf === id)
        throw validation('duplicateOf: a report cannot duplicate itself', [{ path: 'duplicateOf', message: 'a report cannot duplicate itself' }]);
      await getReportRow(tx, companyId, input.duplicateOf).catch(() => {
        throw validation('duplicateOf: no such report of this company', [{ path: 'duplicateOf', message: 'no such report of this company' }]);
      });
    }
    if (input.assigneeId) await assertMember(tx, companyId, input.assigneeId);
    const now = new Date();
    // A future awareness time would hold every Article 14 clock back until it came (issue 24); a
    // few minutes of clock difference between the caller and us are allowed.
    for (const field of ['awareAt', 'fixAvailableAt'] as const) {
      const v = input[field];
      if (v && new Date(v).getTime() > now.getTime() + CLOCK_SKEW_MS) {
        throw validation(`${field}: must not be in the future (more than 5 minutes ahead of ${now.toISOString()})`, [
          { path: field, message: 'must not be in the future' },
        ]);
      }
    }
    const set = {
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(input.cvssVector !== undefined ? { cvssVector: score?.vector ?? null, cvssScore: score?.baseScore ?? null, severity: score?.severity ?? null } : {}),
      ...(input.cwe !== undefined ? { cwe: input.cwe } : {}),
      ...(input.componentPurl !== undefined ? { componentPurl: input.componentPurl } : {}),
      ...(input.duplicateOf !== undefined ? { duplicateOf: input.duplicateOf } : {}),
      ...(input.activelyExploited !== undefined ? { activelyExploited: input.activelyExploited } : {}),
      ...(input.exploitationEvidence !== undefined ? { exploitationEvidence: input.exploitationEvidence } : {}),
      ...(input.awareAt !== undefined ? { awareAt: dateOrNull(input.awareAt) } : {}),
      ...(input.severeIncident !== undefined ? { severeIncident: input.severeIncident } : {}),
      ...(input.fixAvailableAt !== undefined ? { fixAvailableAt: dateOrNull(input.fixAvailableAt) } : {}),
      ...(input.memberStates !== undefined ? { memberStates: [...new Set(input.memberStates)] } : {}),
      ...(input.assigneeId !== undefined ? { assigneeId: input.assigneeId } : {}),
    };
    const [row] = await tx
      .update(reports)
      .set({ ...set, updatedAt: now })
      .where(and(eq(reports.companyId, companyId), eq(reports.id, id)))
      .returning();
    if (!row) throw new Error('update returned no row');
    const statusChanged = input.status !== undefined && input.status !== from;
    // History and audit carry the facts that changed, and only those: a form sends every fact each
    // time, and the ones given again with their value are no change. Free text (evidence) is
    // recorded as "changed" only.
    const changed = Object.entries(set).filter(([k, v]) => comparable(v) !== comparable(cur[k as keyof typeof cur]));
    const changes = Object.fromEntries(changed.map(([k, v]) => [k, k === 'exploitationEvidence' ? '(changed)' : v]));
    if (changed.length > 0)
      await tx.insert(reportEvents).values({
        id: newId(),
        companyId,
        reportId: id,
        at: now,
        actorType: ctx.actor.type,
        actorId: 'id' in ctx.actor ? ctx.actor.id : null,
        fromStatus: statusChanged ? from : null,
        toStatus: statusChanged ? (input.status as string) : null,
        changes,
      });
    await recordAudit(tx, ctx, {
      companyId,
      action: 'reports.update',
      targetType: 'report',
      targetId: id,
      details: { changed: Object.keys(changes), ...(statusChanged ? { from, to: input.status } : {}) },
      at: now,
    });
    if (input.assigneeId !== undefined && input.assigneeId !== cur.assigneeId) {
      await enqueueEvent(
        tx,
        companyId,
        'vulnerability.assigned',
        { submissionId: id, assigneeId: input.assigneeId, previousAssigneeId: cur.assigneeId, assignedAt: now.toISOString() },
        now,
      );
    }
    if (statusChanged) {
      await enqueueEvent(tx, companyId, 'vulnerability.status_changed', { submissionId: id, from, to: input.status, changedAt: now.toISOString() }, now);
    }
    return toReportView(row);
  }
}

/** Only a member of this company can be assigned: anyone else's id is as unknown as a missing one (NOT_FOUND). */
export async function assertMember(db: Executor, companyId: string, userId: string): Promise<void> {
  const [member] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.companyId, companyId), eq(users.id, userId)));
  if (!member) throw notFound('member');
}

/** Marks a report as changed now (a message in its thread), in the caller's transaction. */
export async function touchReport(tx: Executor, companyId: string, id: string, at: Date): Promise<void> {
  await tx
    .update(reports)
    .set({ updatedAt: at })
    .where(and(eq(reports.companyId, companyId), eq(reports.id, id)));
}
