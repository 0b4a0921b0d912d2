import { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Context } from '../../kernel/context.js';
import { isAppError } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import { REPORT_STATES } from './lifecycle.js';
import { insertNote } from './report-notes.js';
import { applyReportUpdate, assertMember } from './update-report.js';

export const BULK_UPDATE_MAX = 100;
export const BULK_REASON_MAX = 2000;

/** `POST /vulnerabilities/bulk-update` (docs/workflow.md "Bulk actions"): one change applied to up to 100 reports. */
export const BulkUpdateInput = z
  .object({
    ids: z
      .array(z.uuid())
      .min(1)
      .max(BULK_UPDATE_MAX)
      .refine((a) => new Set(a).size === a.length, 'ids must not repeat')
      .meta({ description: `The reports to change (submission ids), at most ${BULK_UPDATE_MAX}.` }),
    status: z.enum(REPORT_STATES).optional().meta({ description: "Target state; each report moves only along the lifecycle's transitions." }),
    duplicateOf: z.uuid().optional().meta({ description: 'The original report, when closing as duplicate.' }),
    assigneeId: z.uuid().nullable().optional().meta({ description: 'Assign every report to this member (null: unassign).' }),
    reason: z
      .string()
      .trim()
      .min(1)
      .max(BULK_REASON_MAX)
      .optional()
      .meta({ description: 'Why (closing as duplicate or spam, say): kept as a team-only note on each report changed.' }),
  })
  .strict()
  .refine((b) => b.status !== undefined || b.assigneeId !== undefined, { message: 'give a status or an assigneeId', path: ['status'] })
  .meta({ id: 'BulkUpdateInput' });

export const BulkUpdateItem = z
  .object({
    submissionId: z.uuid(),
    outcome: z.enum(['updated', 'not_found', 'conflict', 'invalid']).meta({
      description:
        'updated; not_found (no such report of this company); conflict (not a lifecycle transition from its state); invalid (the change does not fit it).',
    }),
    status: z.string().nullable().meta({ description: "The report's state after the change; null when it was not changed." }),
    detail: z.string().optional(),
  })
  .meta({ id: 'BulkUpdateItem' });
export const BulkUpdateResult = z
  .object({ updated: z.number().int(), failed: z.number().int(), results: z.array(BulkUpdateItem) })
  .meta({ id: 'BulkUpdateResult', description: 'One result per id, in the order given.' });
export type BulkUpdateResult = z.infer<typeof BulkUpdateResult>;

const OUTCOME = { NOT_FOUND: 'not_found', CONFLICT: 'conflict' } as const;

/**
 * Applies one change to each listed report of the company, each in a transaction of its own (all
 * of a report's change, history, audit, event and note, or none of it); a report that cannot take
 * the change is reported and the others go on. Another company's id answers `not_found`.
 */
export async function bulkUpdateReports(db: Db, ctx: Context, companyId: string, raw: unknown): Promise<BulkUpdateResult> {
  const { ids, reason, ...change } = parseInput(BulkUpdateInput, raw);
  // An assignee who is not a member fails the whole request (404), not each report.
  if (change.assigneeId) await assertMember(db, companyId, change.assigneeId);
  const results: BulkUpdateResult['results'] = [];
  for (const id of ids) {
    try {
      const view = await db.transaction(async (tx) => {
        const v = await applyReportUpdate(tx, ctx, companyId, id, change);
        if (reason) await insertNote(tx, ctx, companyId, id, reason, new Date());
        return v;
      });
      results.push({ submissionId: id, outcome: 'updated', status: view.status });
    } catch (e) {
      if (!isAppError(e)) throw e;
      const outcome = e.code === 'NOT_FOUND' || e.code === 'CONFLICT' ? OUTCOME[e.code] : 'invalid';
      results.push({ submissionId: id, outcome, status: null, detail: e.message });
    }
  }
  const updated = results.filter((r) => r.outcome === 'updated').length;
  return { updated, failed: results.length - updated, results };
}
