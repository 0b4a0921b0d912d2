import { and, desc, eq, ne, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { reports, triageJobs, triageSuggestions } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { newId } from '../../kernel/ids.js';
import { offloadPool } from '../../kernel/offload-pool.js';
import { taskRef } from '../../kernel/worker-task.js';
import { recordAudit } from '../audit/record-audit.js';
import { getReportRow } from '../reports/get-report.js';
import type * as BuiltInTriage from './built-in-triage.js';
import { SIMILARITY_CHARS } from './text-similarity.js';
import { askLlm, type LlmConfig, mergeLlm, type StoredSuggestion } from './llm-triage.js';
import type { ClaimedTriageJob } from './triage-jobs.js';

/** How many of the company's other reports the duplicate search compares against (newest first). */
export const DUPLICATE_WINDOW = 500;

const SYSTEM: Context = { actor: { type: 'system' } };
/** The built-in triage's similarity search on the offload pool (listed in src/jobs/registry.ts). */
export const BUILT_IN_TRIAGE_TASK = taskRef<typeof BuiltInTriage>()(import.meta.url, 'built-in-triage', 'builtInTriageTask');

/**
 * Computes the suggestion of one report: the built-in triage always (offline), then, when an
 * OpenAI-compatible endpoint is configured, the model's judgement over it. Any model failure
 * (timeout, refusal, malformed answer) keeps the built-in suggestion and says why in `note`.
 */
export async function suggestFor(db: Db, companyId: string, reportId: string, llm?: LlmConfig): Promise<StoredSuggestion> {
  const r = await getReportRow(db, companyId, reportId);
  // Only what the comparison reads leaves the database (SIMILARITY_CHARS of each report).
  const clip = (c: AnyPgColumn) => sql<string | null>`left(${c}, ${SIMILARITY_CHARS})`;
  const others = await db
    .select({ id: reports.id, description: clip(reports.description), steps: clip(reports.stepsToReproduce), impact: clip(reports.impact) })
    .from(reports)
    .where(and(eq(reports.companyId, companyId), ne(reports.id, reportId)))
    .orderBy(desc(reports.createdAt))
    .limit(DUPLICATE_WINDOW);
  const input = { description: r.description, stepsToReproduce: r.stepsToReproduce, impact: r.impact, productName: r.productName };
  const earlier = others.map((o) => ({ id: o.id, text: [o.description, o.steps, o.impact].filter(Boolean).join('\n') }));
  // Off the event loop, in the company's turn on the shared pool (docs/threat-model.md, issue 24):
  // as background work, which waits behind the company's pushes rather than being refused with them.
  const builtIn = await offloadPool().run(companyId, BUILT_IN_TRIAGE_TASK, { input, earlier }, [], { background: true });
  if (!llm) return builtIn;
  try {
    return mergeLlm(builtIn, await askLlm(llm, input), llm.model);
  } catch (e) {
    return { ...builtIn, note: `the AI model was not used: ${(e as Error).message}` };
  }
}

/** Runs one claimed job: stores (or replaces) the report's suggestion and closes the job, in one transaction. */
export async function runTriageJob(db: Db, job: ClaimedTriageJob, llm?: LlmConfig, now = new Date()): Promise<StoredSuggestion> {
  const s = await suggestFor(db, job.companyId, job.reportId, llm);
  await db.transaction(async (tx) => {
    const row = {
      source: s.source,
      suggestion: s as unknown as Record<string, unknown>,
      decision: 'pending',
      decidedBy: null,
      decidedAt: null,
      createdAt: now,
    };
    await tx
      .insert(triageSuggestions)
      .values({ id: newId(), companyId: job.companyId, reportId: job.reportId, ...row })
      .onConflictDoUpdate({ target: triageSuggestions.reportId, set: row });
    await tx
      .update(triageJobs)
      .set({ state: 'done', lockedUntil: null, lastError: null, updatedAt: now })
      .where(and(eq(triageJobs.id, job.id), eq(triageJobs.companyId, job.companyId)));
    await recordAudit(tx, SYSTEM, {
      companyId: job.companyId,
      action: 'triage.suggest',
      targetType: 'report',
      targetId: job.reportId,
      at: now,
      details: { source: s.source, duplicates: s.duplicates.length, ...(s.note ? { note: s.note } : {}) },
    });
  });
  return s;
}
