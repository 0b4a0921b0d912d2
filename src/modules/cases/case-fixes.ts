import type { Db, Executor } from '../../db/client.js';
import { caseFixes } from '../../db/schema/index.js';
import { actorName, type Context } from '../../kernel/context.js';
import { validation } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { AddCaseFixInput, type CaseFixView, DESCRIPTION_MAX } from './case-fixes.schemas.js';
import { fixView, listCaseFixRows } from './case-fix-rows.js';
import { caseReportRows, openCaseOnly } from './case-notices.js';
import { getCaseRow, logCaseEvent, touchCase } from './case-store.js';
import { osvDraft } from './osv-draft.js';
import { unifiedDiffProblem } from './unified-diff.js';

/** The company's fixes of one of its cases; NOT_FOUND for another company's case. */
export async function listCaseFixes(db: Executor, companyId: string, caseId: string): Promise<CaseFixView[]> {
  await getCaseRow(db, companyId, caseId);
  return listCaseFixRows(db, companyId, caseId);
}

/**
 * A PSIRT member attaches a fix to an open case: a patch (checked to be a unified diff) or a
 * description, with an OSV draft of the upstream advisory when asked. The case's version rises, so a
 * notice prepared before it is prepared again (an encrypted notice carries the fixes). The log, the
 * audit row and the `case.fix_added` event hold the id, kind and size, never the text.
 */
export async function addCaseFix(db: Db, ctx: Context, companyId: string, caseId: string, raw: unknown): Promise<CaseFixView> {
  await getCaseRow(db, companyId, caseId);
  const input = parseInput(AddCaseFixInput, raw);
  if (input.kind === 'description' && input.body.length > DESCRIPTION_MAX)
    throw validation(`body: a description must be at most ${DESCRIPTION_MAX} characters`, [
      { path: 'body', message: `must be at most ${DESCRIPTION_MAX} characters` },
    ]);
  if (input.kind === 'description' && input.body.trim() === '') throw validation('body: must not be empty', [{ path: 'body', message: 'must not be empty' }]);
  if (input.kind === 'patch') {
    const problem = unifiedDiffProblem(input.body);
    if (problem) throw validation(`body: not a unified diff: ${problem}`, [{ path: 'body', message: `is not a unified diff (${problem})` }]);
  }
  const now = new Date();
  return db.transaction(async (tx) => {
    const c = await getCaseRow(tx, companyId, caseId, true);
    openCaseOnly(c);
    let draft: Record<string, unknown> | null = null;
    if (input.osvDraft) {
      const [first] = await caseReportRows(tx, companyId, caseId);
      if (!first)
        throw validation('osvDraft: the case holds no report to draft the advisory from', [{ path: 'osvDraft', message: 'needs a report in the case' }]);
      draft = osvDraft(c, first, now);
    }
    const id = newId();
    const [row] = await tx
      .insert(caseFixes)
      .values({ id, companyId, caseId, kind: input.kind, body: input.body, osvDraft: draft, createdBy: actorName(ctx), createdAt: now })
      .returning();
    if (!row) throw new Error('fix insert returned nothing');
    const details = { fixId: id, kind: input.kind, bytes: Buffer.byteLength(input.body, 'utf8'), osvDraft: draft !== null };
    await touchCase(tx, companyId, caseId, now);
    await logCaseEvent(tx, { companyId, caseId, actor: actorName(ctx), kind: 'fix_added', details, at: now });
    await recordAudit(tx, ctx, { companyId, action: 'cases.fix_add', targetType: 'case', targetId: caseId, details, at: now });
    // Ids, kind and size only: a patch or a description can carry the flaw itself.
    await enqueueEvent(tx, companyId, 'case.fix_added', { caseId, ...details, createdAt: now.toISOString() }, now);
    return fixView(row);
  });
}
