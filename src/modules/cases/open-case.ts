import type { Db } from '../../db/client.js';
import { caseReports, cases } from '../../db/schema/index.js';
import { actorName, type Context } from '../../kernel/context.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getKnownVuln } from '../known-vulns/decide-known-vuln.js';
import { getReportRow } from '../reports/get-report.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { logCaseEvent } from './case-store.js';
import { OpenCaseInput } from './cases.schemas.js';
import { getCase } from './get-case.js';
import type { CaseView } from './cases.schemas.js';

/**
 * Opens a coordination case from the company's reports, from a known-vulnerability match, or from
 * scratch, with its first log entry, audit row and `case.opened` event in one transaction. Every
 * named report and match must be the company's (NOT_FOUND otherwise; nothing is stored).
 */
export async function openCase(db: Db, ctx: Context, companyId: string, raw: unknown): Promise<CaseView> {
  const input = parseInput(OpenCaseInput, raw);
  const reportIds = [...new Set(input.reportIds ?? [])];
  const id = newId();
  const now = new Date();
  const origin = reportIds.length > 0 ? 'report' : input.knownVulnerabilityId ? 'known_vulnerability' : 'scratch';
  await db.transaction(async (tx) => {
    for (const r of reportIds) await getReportRow(tx, companyId, r);
    if (input.knownVulnerabilityId) await getKnownVuln(tx, companyId, input.knownVulnerabilityId);
    await tx.insert(cases).values({
      id,
      companyId,
      title: input.title,
      summary: input.summary || null,
      origin,
      originRef: input.knownVulnerabilityId ?? null,
      state: 'open',
      embargoState: 'none',
      version: 1,
      createdBy: actorName(ctx),
      createdAt: now,
      updatedAt: now,
    });
    if (reportIds.length > 0)
      await tx.insert(caseReports).values(reportIds.map((reportId, position) => ({ companyId, caseId: id, reportId, addedAt: now, position })));
    await logCaseEvent(tx, {
      companyId,
      caseId: id,
      actor: actorName(ctx),
      kind: 'opened',
      details: { origin, reportIds, knownVulnerabilityId: input.knownVulnerabilityId ?? null },
      at: now,
    });
    await recordAudit(tx, ctx, { companyId, action: 'cases.open', targetType: 'case', targetId: id, details: { origin, reports: reportIds.length }, at: now });
    await enqueueEvent(tx, companyId, 'case.opened', { caseId: id, origin, reportIds }, now);
  });
  return getCase(db, companyId, id);
}
