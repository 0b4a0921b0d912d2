import { createHash } from 'node:crypto';
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { caseAttachments } from '../../db/schema/index.js';
import { conflict, notFound, validation } from '../../kernel/errors.js';
import { isUuid, newId } from '../../kernel/ids.js';
import {
  ATTACHMENT_MAX_BYTES,
  ATTACHMENTS_PER_MESSAGE,
  type AttachmentMediaType,
  CASE_ATTACHMENTS_MAX_BYTES,
  sanitiseFilename,
  sniffMediaType,
} from './attachment-file.js';
import { sizeText } from '../../kernel/size-text.js';
import type { AttachmentInput, CaseAttachmentView } from './case-attachments.schemas.js';
import type { ParticipantRow } from './case-store.js';

/** A file checked and ready to store: what every door (JSON, a multipart form) hands the message verb. */
export type PreparedAttachment = { filename: string; contentType: AttachmentMediaType; size: number; sha256: string; content: Buffer };

/** What the log, the audit row and the webhook payload say of a file: its id, size and hash, never its name (names can carry report text). */
export type AttachmentFacts = { id: string; size: number; sha256: string; contentType: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** A message needs text or at least one file, and carries at most ATTACHMENTS_PER_MESSAGE files. */
export function checkMessageParts(body: string, files: readonly unknown[]): void {
  if (files.length > ATTACHMENTS_PER_MESSAGE)
    throw validation(`at most ${ATTACHMENTS_PER_MESSAGE} files per message`, [
      { path: 'attachments', message: `at most ${ATTACHMENTS_PER_MESSAGE} files per message` },
    ]);
  if (body.length === 0 && files.length === 0)
    throw validation('body must not be empty: write a message or attach a file', [
      { path: 'body', message: 'must not be empty: write a message or attach a file' },
    ]);
}

/** A file from its name and bytes: refused when empty or over the per-file limit (the message names both). */
export function prepareAttachment(name: string, content: Buffer, index: number, truncated = false): PreparedAttachment {
  const filename = sanitiseFilename(name);
  const path = `attachments.${index}`;
  if (content.length === 0) throw validation(`${filename} is empty`, [{ path, message: `${filename} is empty` }]);
  if (truncated || content.length > ATTACHMENT_MAX_BYTES) {
    // A form's file is cut at the limit as it is read (`truncated`): its real size is not known.
    const size = truncated ? `larger than ${sizeText(ATTACHMENT_MAX_BYTES)}` : sizeText(content.length);
    const problem = `${filename} is ${size}; at most ${sizeText(ATTACHMENT_MAX_BYTES)} per file`;
    throw validation(problem, [{ path, message: problem }]);
  }
  return { filename, contentType: sniffMediaType(content), size: content.length, sha256: createHash('sha256').update(content).digest('hex'), content };
}

/** Checks a message's files as sent in JSON (base64), all of them before anything is stored. */
export function prepareJsonAttachments(input: readonly AttachmentInput[] | undefined): PreparedAttachment[] {
  return (input ?? []).map((f, i) => {
    const b64 = f.content.replace(/\s+/g, '');
    if (!BASE64.test(b64) || b64.length % 4 === 1)
      throw validation(`attachments.${i}.content: not base64`, [{ path: `attachments.${i}.content`, message: 'is not base64 (RFC 4648)' }]);
    return prepareAttachment(f.filename, Buffer.from(b64, 'base64'), i);
  });
}

/**
 * Stores a message's files in the caller's transaction, which holds the case's lock (so two
 * messages cannot both pass the per-case total). Refused, with nothing stored, when the case would
 * hold more than CASE_ATTACHMENTS_MAX_BYTES.
 */
export async function storeAttachments(
  tx: Executor,
  p: ParticipantRow,
  messageId: string,
  files: readonly PreparedAttachment[],
  now: Date,
): Promise<CaseAttachmentView[]> {
  if (files.length === 0) return [];
  const [held] = await tx
    .select({ bytes: sql<number>`coalesce(sum(${caseAttachments.size}), 0)::bigint` })
    .from(caseAttachments)
    .where(and(eq(caseAttachments.companyId, p.companyId), eq(caseAttachments.caseId, p.caseId)));
  const before = Number(held?.bytes ?? 0);
  const adding = files.reduce((n, f) => n + f.size, 0);
  if (before + adding > CASE_ATTACHMENTS_MAX_BYTES)
    throw conflict(
      `the case already holds ${sizeText(before)} of attachments and these files add ${sizeText(adding)}; at most ${sizeText(CASE_ATTACHMENTS_MAX_BYTES)} per case`,
    );
  const rows = files.map((f) => ({ id: newId(), companyId: p.companyId, caseId: p.caseId, messageId, participantId: p.id, ...f, createdAt: now }));
  await tx.insert(caseAttachments).values(rows);
  return rows.map(view);
}

const META = {
  id: caseAttachments.id,
  messageId: caseAttachments.messageId,
  filename: caseAttachments.filename,
  contentType: caseAttachments.contentType,
  size: caseAttachments.size,
  sha256: caseAttachments.sha256,
  createdAt: caseAttachments.createdAt,
};
type Meta = { id: string; messageId: string; filename: string; contentType: string; size: number; sha256: string; createdAt: Date };

const view = (a: Meta): CaseAttachmentView => ({
  id: a.id,
  messageId: a.messageId,
  filename: a.filename,
  contentType: a.contentType as CaseAttachmentView['contentType'],
  size: a.size,
  sha256: a.sha256,
  createdAt: a.createdAt.toISOString(),
});

export const attachmentFacts = (a: CaseAttachmentView): AttachmentFacts => ({ id: a.id, size: a.size, sha256: a.sha256, contentType: a.contentType });

/** The files of the given messages (metadata only), by message id. */
export async function attachmentsByMessage(db: Executor, companyId: string, messageIds: readonly string[]): Promise<Map<string, CaseAttachmentView[]>> {
  const out = new Map<string, CaseAttachmentView[]>();
  if (messageIds.length === 0) return out;
  const rows = await db
    .select(META)
    .from(caseAttachments)
    .where(and(eq(caseAttachments.companyId, companyId), inArray(caseAttachments.messageId, [...messageIds])))
    .orderBy(asc(caseAttachments.createdAt), asc(caseAttachments.id));
  for (const r of rows) out.set(r.messageId, [...(out.get(r.messageId) ?? []), view(r)]);
  return out;
}

/**
 * One file with its bytes, as the company sees it (every file of its case) or, with `participantId`,
 * as that participant sees it (only files of its own thread). Anything else is NOT_FOUND.
 */
export async function readAttachment(
  db: Executor,
  companyId: string,
  caseId: string,
  attachmentId: string,
  participantId?: string,
): Promise<CaseAttachmentView & { content: Buffer }> {
  if (!isUuid(attachmentId)) throw notFound('attachment');
  const [row] = await db
    .select({ ...META, content: caseAttachments.content })
    .from(caseAttachments)
    .where(
      and(
        eq(caseAttachments.id, attachmentId),
        eq(caseAttachments.companyId, companyId),
        eq(caseAttachments.caseId, caseId),
        ...(participantId ? [eq(caseAttachments.participantId, participantId)] : []),
      ),
    );
  if (!row) throw notFound('attachment');
  return { ...view(row), content: row.content };
}
