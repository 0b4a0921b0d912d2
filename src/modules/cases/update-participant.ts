import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { caseParticipants } from '../../db/schema/index.js';
import { actorName, type Context } from '../../kernel/context.js';
import { validation } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { getCaseRow, getParticipantRow, logCaseEvent, toParticipantView } from './case-store.js';
import { type ParticipantView, UpdateParticipantInput } from './cases.schemas.js';

/** The team records a participant's status or fix date (what it learnt outside Cradle, say). */
export async function updateParticipant(
  db: Db,
  ctx: Context,
  companyId: string,
  caseId: string,
  participantId: string,
  raw: unknown,
): Promise<ParticipantView> {
  const input = parseInput(UpdateParticipantInput, raw);
  if (input.status === undefined && input.fixAvailableAt === undefined) throw validation('nothing to change: give status or fixAvailableAt', []);
  const now = new Date();
  return db.transaction(async (tx) => {
    await getCaseRow(tx, companyId, caseId, true);
    const before = await getParticipantRow(tx, companyId, caseId, participantId);
    const [row] = await tx
      .update(caseParticipants)
      .set({
        ...(input.status ? { status: input.status } : {}),
        ...(input.fixAvailableAt !== undefined ? { fixAvailableAt: input.fixAvailableAt === null ? null : new Date(input.fixAvailableAt) } : {}),
        updatedAt: now,
      })
      .where(and(eq(caseParticipants.companyId, companyId), eq(caseParticipants.id, participantId)))
      .returning();
    if (!row) throw new Error('participant update returned nothing');
    const details = { from: before.status, to: row.status, fixAvailableAt: row.fixAvailableAt?.toISOString() ?? null };
    await logCaseEvent(tx, { companyId, caseId, participantId, actor: actorName(ctx), kind: 'participant_updated', details, at: now });
    await recordAudit(tx, ctx, {
      companyId,
      action: 'cases.participant_update',
      targetType: 'case',
      targetId: caseId,
      details: { participantId, ...details },
      at: now,
    });
    await enqueueEvent(tx, companyId, 'case.participant_updated', { caseId, participantId, change: 'status', status: row.status, ...details }, now);
    return toParticipantView(row);
  });
}
