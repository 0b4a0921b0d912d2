import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Executor } from '../../db/client.js';
import { reportMessages } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getReportRow } from '../reports/get-report.js';
import { touchReport } from '../reports/update-report.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { plainTextBody } from '../reports/report-notes.js';

export const MESSAGE_MAX = 16 * 1024;

/** One message of the thread; `body` is plain text from either side (the researcher's is hostile). */
export const MessageInput = z
  .object({ body: plainTextBody(MESSAGE_MAX) })
  .strict()
  .meta({ id: 'ReportMessageInput' });

export type MessageView = { id: string; author: 'researcher' | 'company'; authorId: string | null; body: string; createdAt: string };

/** The thread of one report, oldest first, scoped to the company. */
export async function listMessages(db: Executor, companyId: string, reportId: string): Promise<MessageView[]> {
  const rows = await db
    .select()
    .from(reportMessages)
    .where(and(eq(reportMessages.companyId, companyId), eq(reportMessages.reportId, reportId)))
    .orderBy(asc(reportMessages.createdAt), asc(reportMessages.id));
  return rows.map((r) => ({ id: r.id, author: r.author as MessageView['author'], authorId: r.authorId, body: r.body, createdAt: r.createdAt.toISOString() }));
}

/**
 * Adds a message to a report's thread with its audit row and a `vulnerability.message` event, in
 * one transaction. The report is looked up within the company (NOT_FOUND otherwise); the caller
 * decides who may write as whom (session for the company, status capability for the researcher).
 */
export async function postMessage(
  db: Db,
  ctx: Context,
  companyId: string,
  reportId: string,
  author: MessageView['author'],
  raw: unknown,
): Promise<MessageView> {
  const { body } = parseInput(MessageInput, raw);
  const now = new Date();
  const id = newId();
  const authorId = author === 'company' && 'id' in ctx.actor ? ctx.actor.id : null;
  await db.transaction(async (tx) => {
    await getReportRow(tx, companyId, reportId, true);
    await tx.insert(reportMessages).values({ id, companyId, reportId, author, authorId, body, createdAt: now });
    await touchReport(tx, companyId, reportId, now);
    // The audit log is kept longer than reports and exported: the size, never the text.
    await recordAudit(tx, ctx, {
      companyId,
      action: 'reports.message',
      targetType: 'report',
      targetId: reportId,
      details: { author, messageId: id, bytes: Buffer.byteLength(body, 'utf8') },
      at: now,
    });
    await enqueueEvent(tx, companyId, 'vulnerability.message', { submissionId: reportId, messageId: id, author, body, createdAt: now.toISOString() }, now);
  });
  return { id, author, authorId, body, createdAt: now.toISOString() };
}
