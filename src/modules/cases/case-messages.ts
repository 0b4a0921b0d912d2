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
import {
  attachmentFacts,
  attachmentsByMessage,
  type PreparedAttachment,
  prepareJsonAttachments,
  checkMessageParts,
  storeAttachments,
} from './case-attachments.js';

type MessageRow = typeof caseMessages.$inferSelect;

const view = (m: MessageRow, attachments: CaseMessageView['attachments']): CaseMessageView => ({
  id: m.id,
  participantId: m.participantId,
  author: m.author as CaseMessageView['author'],
  authorId: m.authorId,
  body: m.body,
  attachments,
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
  const files = await attachmentsByMessage(
    db,
    companyId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => view(r, files.get(r.id) ?? []));
}

/**
 * Writes one message and its files into a participant's shared thread with its log entry, audit row
 * (the sizes and the files' hashes, never the text or the file names) and `case.message` event, in
 * the caller's transaction (which holds the case's lock).
 */
export async function insertCaseMessage(
  tx: Executor,
  ctx: Context,
  p: ParticipantRow,
  author: CaseMessageView['author'],
  body: string,
  now: Date,
  files: readonly PreparedAttachment[] = [],
): Promise<CaseMessageView> {
  const id = newId();
  const authorId = author === 'company' ? actorName(ctx) : null;
  const [row] = await tx
    .insert(caseMessages)
    .values({ id, companyId: p.companyId, caseId: p.caseId, participantId: p.id, author, authorId, body, createdAt: now })
    .returning();
  if (!row) throw new Error('message insert returned nothing');
  const attachments = await storeAttachments(tx, p, id, files, now);
  const facts = attachments.map(attachmentFacts);
  await logCaseEvent(tx, {
    companyId: p.companyId,
    caseId: p.caseId,
    participantId: p.id,
    actor: author === 'company' ? actorName(ctx) : `participant:${p.id}`,
    kind: 'message',
    details: { messageId: id, author, ...(facts.length ? { attachments: facts } : {}) },
    at: now,
  });
  await recordAudit(tx, ctx, {
    companyId: p.companyId,
    action: 'cases.message',
    targetType: 'case',
    targetId: p.caseId,
    details: { participantId: p.id, author, messageId: id, bytes: Buffer.byteLength(body, 'utf8'), ...(facts.length ? { attachments: facts } : {}) },
    at: now,
  });
  await enqueueEvent(
    tx,
    p.companyId,
    'case.message',
    { caseId: p.caseId, participantId: p.id, messageId: id, author, body, attachments: facts, createdAt: now.toISOString() },
    now,
  );
  return view(row, attachments);
}

/**
 * The company writes into the thread it shares with one participant, with files sent as base64 in
 * `raw` (JSON) or already read from a form (`uploaded`).
 */
export async function postCaseMessage(
  db: Db,
  ctx: Context,
  companyId: string,
  caseId: string,
  raw: unknown,
  uploaded: readonly PreparedAttachment[] = [],
): Promise<CaseMessageView> {
  // An unknown case is not found whatever the body says.
  await getCaseRow(db, companyId, caseId);
  const { participantId, body, attachments } = parseInput(CaseMessageInput, raw);
  const files = [...prepareJsonAttachments(attachments), ...uploaded];
  checkMessageParts(body, files);
  const now = new Date();
  return db.transaction(async (tx) => {
    await getCaseRow(tx, companyId, caseId, true);
    const p = await getParticipantRow(tx, companyId, caseId, participantId);
    return insertCaseMessage(tx, ctx, p, 'company', body, now, files);
  });
}
