import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { caseNotices, caseParticipants } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';
import { actorName, type Context } from '../../kernel/context.js';
import { conflict, notFound } from '../../kernel/errors.js';
import { randomHex, sha256Hex } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { enqueueEvent } from '../webhooks/enqueue-event.js';
import { channelOf } from './case-channels.js';
import { caseReportRows, openCaseOnly, toNoticeView } from './case-notices.js';
import { getCaseRow, getParticipantRow, logCaseEvent } from './case-store.js';
import { ConfirmNoticesInput, type NoticeView } from './cases.schemas.js';
import { LINK_PLACEHOLDER } from './notice-text.js';

/** The private participant link for a token (docs/coordination.md "Participant link"). */
export const participantLink = (siteUrl: string, token: string): string => `${siteUrl}/coordination/${token}`;

/**
 * Step two: sends the named prepared notices, as shown, through each participant's channel. A
 * notice prepared at an older case version is refused (CONFLICT: prepare again), as is one already
 * sent or superseded. Each participant reached gets its notified date, the status
 * contact_attempted, and (e-mail) a fresh private link whose token only the mail carries. A
 * `github` notice is queued instead: the `cases.github-deliver` job posts it outside any transaction.
 *
 * Runs as system: a `cradle` notice files a report into another company's inbox in the same
 * transaction (ADR 0009's doors). Every read and write of this company's rows still names it.
 */
export async function confirmNotices(db: Db, ctx: Context, companyId: string, caseId: string, raw: unknown, opts: { siteUrl: string }): Promise<NoticeView[]> {
  const { noticeIds } = parseInput(ConfirmNoticesInput, raw);
  const ids = [...new Set(noticeIds)];
  const now = new Date();
  return asSystem(() =>
    db.transaction(async (tx) => {
      const c = await getCaseRow(tx, companyId, caseId, true);
      openCaseOnly(c);
      const notices = await tx
        .select()
        .from(caseNotices)
        .where(and(eq(caseNotices.companyId, companyId), eq(caseNotices.caseId, caseId), inArray(caseNotices.id, ids)));
      if (notices.length !== ids.length) throw notFound('notice');
      for (const n of notices) {
        if (n.state !== 'prepared') throw conflict(`notice ${n.id} was already ${n.state === 'sent' ? 'sent' : 'replaced by a newer preparation'}`);
        if (n.caseVersion !== c.version)
          throw conflict(`the case changed since notice ${n.id} was prepared (version ${n.caseVersion}, now ${c.version}): prepare the notices again`);
      }
      const reports = await caseReportRows(tx, companyId, caseId);
      const out: NoticeView[] = [];
      for (const n of notices) {
        const p = await getParticipantRow(tx, companyId, caseId, n.participantId);
        const channel = channelOf(p);
        const plan = await channel.plan(p);
        const token = plan.linked ? randomHex(32) : undefined;
        const body = token ? n.body.replace(LINK_PLACEHOLDER, participantLink(opts.siteUrl, token)) : n.body;
        const sent = await channel.deliver({ tx, companyId, c, p, reports, subject: n.subject, body, now });
        // A `github` notice waits for the delivery job: the participant is notified when GitHub took it.
        const queued = sent.queued === true;
        if (!queued)
          await tx
            .update(caseParticipants)
            .set({
              notifiedAt: now,
              status: p.status === 'not_contacted' ? 'contact_attempted' : p.status,
              updatedAt: now,
              ...(token ? { linkTokenDigest: sha256Hex(token) } : {}),
              ...(sent.peerReportId ? { peerReportId: sent.peerReportId } : {}),
            })
            .where(and(eq(caseParticipants.companyId, companyId), eq(caseParticipants.id, p.id)));
        // The stored notice keeps the placeholder: the link's token exists only in what was sent.
        const [row] = await tx
          .update(caseNotices)
          .set(
            queued
              ? { state: 'queued', sentBy: actorName(ctx), nextAttemptAt: now, attempts: 0, failure: null }
              : { state: 'sent', sentAt: now, sentBy: actorName(ctx) },
          )
          .where(eq(caseNotices.id, n.id))
          .returning();
        if (row) out.push(toNoticeView(row));
        await logCaseEvent(tx, {
          companyId,
          caseId,
          participantId: p.id,
          actor: actorName(ctx),
          kind: queued ? 'notice_queued' : 'notice_sent',
          details: { noticeId: n.id, channel: p.channel, ...(queued ? {} : { encrypted: n.encrypted === 'yes' }) },
          at: now,
        });
        if (queued) continue;
        await enqueueEvent(
          tx,
          companyId,
          'case.notified',
          { caseId, participantId: p.id, noticeId: n.id, channel: p.channel, role: p.role, notifiedAt: now.toISOString() },
          now,
        );
      }
      await recordAudit(tx, ctx, {
        companyId,
        action: 'cases.notice_confirm',
        targetType: 'case',
        targetId: caseId,
        details: { notices: out.length },
        at: now,
      });
      return out;
    }),
  );
}
