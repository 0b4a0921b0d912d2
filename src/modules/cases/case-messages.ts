import { and, asc, eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { caseMessages } from '../../db/schema/index.js';
import { actorName, type Context } from '../../kernel/context.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { getCaseRow, getParticipantRow, logCaseEvent, type ParticipantRow } from './case-store.js';
import { CaseMessageInput, type CaseMessageView } from './cases.schemas.js';

type MessageRow = typeof caseMessages.$inferSelect;

const view = (m: MessageRow): CaseMessageView => ({
  id: m.id,
  participantId: m.participantId,
  author: m.author as CaseMessageView['author'],
  authorId: m.authorId,
  body: m.body,
  createdAt: m.createdAt.toISOString(),
});

/** Every shared thread of a case (or one participant's), oldest first. */
export async function listCaseMessages(db: Executor, companyId: string, caseId: string, participantId?: string): Promise<CaseMessageView[]> {
  const rows = await db
    .select()
    .from(caseMessages)
    .where(
      and(eq(caseMessages.companyId, companyId), eq(caseMessages.caseId, caseId), ...(participantId ? [eq(caseMessages.participantId, participantId)] : [])),
    )
    .orderBy(asc(caseMessages.createdAt), asc(caseMessages.id));
  return rows.map(view);
}

/**
 * Writes one message into a participant's shared thread with its log entry, audit row (the size,
 * never the text) and `case.message` event, in the caller's transaction.
 */
export async function insertCaseMessage(
  tx: Executor,
  ctx: Context,
  p: ParticipantRow,
  author: CaseMessageView['author'],
  body: string,
  now: Date,
): Promise<CaseMessageView> {
  const id = newId();
  const authorId = author === 'company' ? actorName(ctx) : null;
  const [row] = await tx
    .insert(caseMessages)
    .values({ id, companyId: p.companyId, caseId: p.caseId, participantId: p.id, author, authorId, body, createdAt: now })
    .returning();
  await logCaseEvent(tx, {
    companyId: p.companyId,
    caseId: p.caseId,
    participantId: p.id,
    actor: author === 'company' ? actorName(ctx) : `participant:${p.id}`,
    kind: 'message',
    details: { messageId: id, author },
    at: now,
  });
  await recordAudit(tx, ctx, {
    companyId: p.companyId,
    action: 'cases.message',
    targetType: 'case',
    targetId: p.caseId,
    details: { participantId: p.id, author, messageId: id, bytes: Buffer.byteLength(body, 'utf8') },
    at: now,
  });
  await enqueueEvent(
    tx,
    p.companyId,
    'case.message',
    { caseId: p.caseId, participantId: p.id, messageId: id, author, body, createdAt: now.toISOString() },
    now,
  );
  if (!row) throw new Error('message insert returned nothing');
  return view(row);
}

/** The company writes into the thread it shares with one participant. */
export async function postCaseMessage(db: Db, ctx: Context, companyId: string, caseId: string, raw: unknown): Promise<CaseMessageView> {
  // An unknown case is not found whatever the body says.
  await getCaseRow(db, companyId, caseId);
  const { participantId, body } = parseInput(CaseMessageInput, raw);
  const now = new Date();
  return db.transaction(async (tx) => {
    await getCaseRow(tx, companyId, caseId, true);
    const p = await getParticipantRow(tx, companyId, caseId, participantId);
    return insertCaseMessage(tx, ctx, p, 'company', body, now);
  });
}
