import type { Executor } from '../../db/client.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { loadOpenpgp, usableKey } from '../mail/compose-mail.js';
import { queueMail } from '../mail/mail-queue.js';
import { getCompanyById } from '../companies/get-company.js';
import { fileValidatedReport } from '../reports/file-report.js';
import { REPORT_LIMITS } from '../reports/reports.schemas.js';
import type { CaseRow, ParticipantRow } from './case-store.js';
import type { ReportRow } from '../reports/get-report.js';

/** How a channel will carry a participant's notice: shown before anything is sent. */
export type ChannelPlan = {
  recipient: string;
  /** The notice is OpenPGP-encrypted on its way. */
  encrypted: boolean;
  /** The notice carries the case summary and report text (else only a private link). */
  withText: boolean;
  /** The participant gets a private participant link. */
  linked: boolean;
};

export type Delivery = {
  /** A transaction run as system: a `cradle` delivery writes into another company's inbox. */
  tx: Executor;
  companyId: string;
  c: CaseRow;
  p: ParticipantRow;
  reports: readonly ReportRow[];
  subject: string;
  /** The notice as shown, with the private link in place. */
  body: string;
  now: Date;
};

export type CaseChannel = {
  plan(p: ParticipantRow): Promise<ChannelPlan>;
  /** `queued`: the notice waits for a delivery job that posts it outside any transaction. */
  deliver(d: Delivery): Promise<{ peerReportId?: string; queued?: boolean }>;
};

const pgp = loadOpenpgp;

const unavailable = (message: string) => new AppError(ErrorCode.UNPROCESSABLE, message);

/**
 * The one map from a participant's channel to how a notice reaches it. A `github` notice is only
 * queued here; the delivery job (github-deliver.ts) posts it to the repository's private
 * vulnerability reporting after the confirming transaction committed.
 */
export const CASE_CHANNELS: Record<'cradle' | 'email' | 'github', CaseChannel> = {
  cradle: {
    plan: async (p) => ({ recipient: `${p.name} (${p.address ?? ''} on this instance)`, encrypted: false, withText: true, linked: false }),
    async deliver(d) {
      if (!d.p.peerCompanyId) throw unavailable('this participant names no company on this instance');
      const peer = await getCompanyById(d.tx, d.p.peerCompanyId);
      const first = d.reports[0];
      // The other company's audit row names Cradle itself as the filer: the sender's user ids are not its business.
      const filed = await fileValidatedReport(
        d.tx,
        { actor: { type: 'system' } },
        peer,
        {
          description: d.body.slice(0, REPORT_LIMITS.description / 4),
          ...(first?.vulnerabilityType ? { vulnerabilityType: first.vulnerabilityType } : {}),
        } as Parameters<typeof fileValidatedReport>[3],
        'coordination',
      );
      return { peerReportId: filed.report.submissionId };
    },
  },
  email: {
    async plan(p) {
      const key = await usableKey(p.pgpKey);
      return { recipient: p.address ?? '', encrypted: key !== undefined, withText: key !== undefined, linked: true };
    },
    async deliver(d) {
      const key = await usableKey(d.p.pgpKey);
      let text = d.body;
      if (key) {
        const { createMessage, encrypt } = await pgp();
        text = (await encrypt({ message: await createMessage({ text: d.body }), encryptionKeys: key })) as string;
      }
      // Only ciphertext, or a notice without report text, waits in the mail queue.
      await queueMail(d.tx, {
        companyId: d.companyId,
        kind: 'case.notice',
        recipient: d.p.address ?? '',
        data: { subject: d.subject, text, encrypted: key ? 'yes' : 'no', caseId: d.c.id },
        now: d.now,
      });
      return {};
    },
  },
  github: {
    plan: async (p) => ({
      recipient: `GitHub private vulnerability reporting of ${p.address ?? ''}`,
      encrypted: false,
      withText: true,
      linked: false,
    }),
    // The call to GitHub never runs in this transaction: the `cases.github-deliver` job posts it.
    deliver: async () => ({ queued: true }),
  },
};

/** The channel of a participant, or a clear refusal when notices cannot reach it. */
export function channelOf(p: ParticipantRow): CaseChannel {
  if (p.channel === 'cradle' || p.channel === 'email' || p.channel === 'github') return CASE_CHANNELS[p.channel];
  throw unavailable(`participant "${p.name}" has no channel (only a repository URL is known): add it again by e-mail address or company slug`);
}
