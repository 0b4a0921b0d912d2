import { and, asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Executor } from '../../db/client.js';
import { reportNotes } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getReportRow } from './get-report.js';
import { maxBytes } from './reports.schemas.js';

/** A plain-text body of at most `max` bytes of UTF-8 once trimmed, not blank (a thread message, a team note). */
export const plainTextBody = (max: number) =>
  z
    .string({ error: 'body must be a string' })
    .max(max, `body must be at most ${max / 1024} KiB`)
    .transform((s) => s.trim())
    .refine((s) => s.length > 0, 'body must not be empty')
    .refine((s) => Buffer.byteLength(s, 'utf8') <= max, `body must be at most ${max / 1024} KiB`)
    .meta({ description: `Plain text, not blank; at most ${max / 1024} KiB (${max} bytes) of UTF-8 once trimmed.`, ...maxBytes(max) });

export const NOTE_MAX = 16 * 1024;

export const NoteInput = z
  .object({ body: plainTextBody(NOTE_MAX) })
  .strict()
  .meta({ id: 'ReportNoteInput' });

export const ReportNote = z
  .object({
    id: z.uuid(),
    authorId: z.uuid().nullable().meta({ description: 'The member who wrote it; null when an API key did, or once the member was removed.' }),
    body: z.string(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'ReportNote', description: 'A team-only note: never shown to the researcher, never mailed, never in a webhook event.' });
export type ReportNote = z.infer<typeof ReportNote>;

const userOf = (ctx: Context): string | null => (ctx.actor.type === 'user' ? ctx.actor.id : null);

/** The team's notes on one report, oldest first; another company's report is NOT_FOUND. */
export async function listNotes(db: Executor, companyId: string, reportId: string): Promise<ReportNote[]> {
  await getReportRow(db, companyId, reportId);
  const rows = await db
    .select()
    .from(reportNotes)
    .where(and(eq(reportNotes.companyId, companyId), eq(reportNotes.reportId, reportId)))
    .orderBy(asc(reportNotes.createdAt), asc(reportNotes.id));
  return rows.map((r) => ({ id: r.id, authorId: r.authorId, body: r.body, createdAt: r.createdAt.toISOString() }));
}

/** Writes a note inside the caller's transaction (a bulk close's reason); the report must be the company's and locked by the caller. */
export async function insertNote(tx: Executor, ctx: Context, companyId: string, reportId: string, body: string, now: Date): Promise<ReportNote> {
  const id = newId();
  const authorId = userOf(ctx);
  await tx.insert(reportNotes).values({ id, companyId, reportId, authorId, body, createdAt: now });
  // The audit log is kept longer than reports and exported: the size, never the text.
  await recordAudit(tx, ctx, {
    companyId,
    action: 'reports.note',
    targetType: 'report',
    targetId: reportId,
    details: { noteId: id, bytes: Buffer.byteLength(body, 'utf8') },
    at: now,
  });
  return { id, authorId, body, createdAt: now.toISOString() };
}

/**
 * Adds a team-only note to a report with its audit row, in one transaction. No event and no mail:
 * a note is for the team's eyes in Cradle only (docs/workflow.md "Team notes").
 */
export async function addNote(db: Db, ctx: Context, companyId: string, reportId: string, raw: unknown): Promise<ReportNote> {
  const { body } = parseInput(NoteInput, raw);
  return db.transaction(async (tx) => {
    await getReportRow(tx, companyId, reportId, true);
    return insertNote(tx, ctx, companyId, reportId, body, new Date());
  });
}
