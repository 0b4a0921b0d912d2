import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Executor } from '../../db/client.js';
import { triageSuggestions } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode, notFound } from '../../kernel/errors.js';
import { recordAudit } from '../audit/record-audit.js';
import { getReportRow } from '../reports/get-report.js';
import type { StoredSuggestion } from './llm-triage.js';

/** A report's triage suggestion as the API shows it (never applied by itself). */
export const TriageSuggestion = z
  .object({
    source: z.string().meta({ description: '`built-in`, or `llm:{model}` when the optional model made it.' }),
    vulnerabilityType: z.object({ value: z.string(), confidence: z.number(), matched: z.array(z.string()) }).nullable(),
    severity: z.object({ level: z.string(), reason: z.string() }),
    duplicates: z.array(z.object({ reportId: z.string(), similarity: z.number() })),
    spam: z.object({ likelihood: z.number(), signals: z.array(z.string()) }),
    summary: z.string(),
    cwe: z.string().nullable().optional(),
    note: z.string().optional().meta({ description: "Why the built-in result stands in for the model's, when it does." }),
    decision: z.string().meta({ description: 'pending, accepted or dismissed.' }),
    decidedBy: z.string().nullable(),
    decidedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
  })
  .meta({ id: 'TriageSuggestion' });
export type SuggestionView = z.infer<typeof TriageSuggestion>;

/** The report's triage suggestion, or null when none was made (AI triage off, or not run yet). */
export async function getSuggestion(db: Executor, companyId: string, reportId: string): Promise<SuggestionView | null> {
  const [row] = await db
    .select()
    .from(triageSuggestions)
    .where(and(eq(triageSuggestions.companyId, companyId), eq(triageSuggestions.reportId, reportId)));
  if (!row) return null;
  return {
    ...(row.suggestion as unknown as StoredSuggestion),
    source: row.source,
    decision: row.decision,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** A suggestion's decision: pending until a member accepts or dismisses it. */
export const SUGGESTION_DECISIONS = ['pending', 'accepted', 'dismissed'] as const;
export const SuggestionDecision = z.enum(['accepted', 'dismissed']);

/**
 * A person accepts or dismisses the suggestion. Accepting records agreement only: the facts
 * themselves change through the report's own update (status, CVSS, duplicate-of), never here.
 */
export async function decideSuggestion(db: Db, ctx: Context, companyId: string, reportId: string, decision: unknown): Promise<SuggestionView> {
  const d = SuggestionDecision.safeParse(decision);
  if (!d.success)
    throw new AppError(ErrorCode.VALIDATION, 'decision: expected accepted or dismissed', {
      issues: [{ path: 'decision', message: 'expected accepted or dismissed' }],
    });
  const now = new Date();
  await db.transaction(async (tx) => {
    await getReportRow(tx, companyId, reportId);
    const by = 'id' in ctx.actor ? `${ctx.actor.type}:${ctx.actor.id}` : ctx.actor.type;
    const done = await tx
      .update(triageSuggestions)
      .set({ decision: d.data, decidedBy: by, decidedAt: now })
      .where(and(eq(triageSuggestions.companyId, companyId), eq(triageSuggestions.reportId, reportId)))
      .returning({ id: triageSuggestions.id });
    if (done.length === 0) throw notFound('triage suggestion');
    await recordAudit(tx, ctx, { companyId, action: 'triage.decide', targetType: 'report', targetId: reportId, details: { decision: d.data }, at: now });
  });
  return (await getSuggestion(db, companyId, reportId)) as SuggestionView;
}
