import { and, eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { reports } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { isUuid, safeEqual } from '../../kernel/ids.js';
import { recordAudit } from '../audit/record-audit.js';

/**
 * The report a researcher's mail link names, locked, once its token matched (compared in constant
 * time); any mismatch is "not found".
 */
async function lockByMailToken(tx: Executor, companyId: string, reportId: string, token: string) {
  const notFound = new AppError(ErrorCode.NOT_FOUND, 'this e-mail link is not valid here');
  if (!isUuid(reportId) || !/^[0-9a-f]{32}$/.test(token)) throw notFound;
  const [r] = await tx
    .select({ token: reports.researcherMailToken, wanted: reports.researcherUpdates, confirmedAt: reports.researcherConfirmedAt })
    .from(reports)
    .where(and(eq(reports.companyId, companyId), eq(reports.id, reportId)))
    .for('update');
  if (!r?.token || !safeEqual(r.token, token)) throw notFound;
  return r;
}

const byId = (companyId: string, reportId: string) => and(eq(reports.companyId, companyId), eq(reports.id, reportId));

/**
 * The researcher's unsubscribe link (`List-Unsubscribe`, RFC 2369/8058): stops every later mail
 * about one report.
 */
export async function stopResearcherMail(db: Db, ctx: Context, companyId: string, reportId: string, token: string): Promise<void> {
  await db.transaction(async (tx) => {
    const r = await lockByMailToken(tx, companyId, reportId, token);
    if (!r.wanted) return;
    await tx.update(reports).set({ researcherUpdates: false }).where(byId(companyId, reportId));
    await recordAudit(tx, ctx, { companyId, action: 'reports.researcher_mail_stopped', targetType: 'report', targetId: reportId });
  });
}

/**
 * The link in the first mail to a researcher's address (issue 32, finding 4): its owner confirms
 * that they asked for mail about the report; status and message mails follow only then. Returns
 * false when the mail was stopped (nothing to confirm). Confirming twice changes nothing.
 */
export async function confirmResearcherMail(db: Db, ctx: Context, companyId: string, reportId: string, token: string, now = new Date()): Promise<boolean> {
  return db.transaction(async (tx) => {
    const r = await lockByMailToken(tx, companyId, reportId, token);
    if (!r.wanted) return false;
    if (r.confirmedAt) return true;
    await tx.update(reports).set({ researcherConfirmedAt: now }).where(byId(companyId, reportId));
    await recordAudit(tx, ctx, { companyId, action: 'reports.researcher_mail_confirmed', targetType: 'report', targetId: reportId, at: now });
    return true;
  });
}
