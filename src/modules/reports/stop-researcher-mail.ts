import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { reports } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { isUuid, safeEqual } from '../../kernel/ids.js';
import { recordAudit } from '../audit/record-audit.js';

/**
 * The researcher's unsubscribe link (`List-Unsubscribe`, RFC 2369/8058): stops every later mail
 * about one report. The token is compared in constant time; any mismatch is "not found".
 */
export async function stopResearcherMail(db: Db, ctx: Context, companyId: string, reportId: string, token: string): Promise<void> {
  const notFound = new AppError(ErrorCode.NOT_FOUND, 'this unsubscribe link is not valid here');
  if (!isUuid(reportId) || !/^[0-9a-f]{32}$/.test(token)) throw notFound;
  await db.transaction(async (tx) => {
    const [r] = await tx
      .select({ token: reports.researcherMailToken, wanted: reports.researcherUpdates })
      .from(reports)
      .where(and(eq(reports.companyId, companyId), eq(reports.id, reportId)))
      .for('update');
    if (!r?.token || !safeEqual(r.token, token)) throw notFound;
    if (!r.wanted) return;
    await tx
      .update(reports)
      .set({ researcherUpdates: false })
      .where(and(eq(reports.companyId, companyId), eq(reports.id, reportId)));
    await recordAudit(tx, ctx, { companyId, action: 'reports.researcher_mail_stopped', targetType: 'report', targetId: reportId });
  });
}
