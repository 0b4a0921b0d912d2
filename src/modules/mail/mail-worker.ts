import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { type Listen, WAKE_CHANNELS } from '../../db/notifications.js';
import { startPollLoop } from '../../db/poll-loop.js';
import { composeMail } from './compose-mail.js';
import { type ClaimedMail, claimDueMail, type MailOutcome, recordMailOutcome, recordSent, sentSince } from './mail-queue.js';
import { isPermanentSmtpError, type MailTransport } from './mail-transport.js';

export type MailWorkerOptions = {
  config: Config;
  mail: NonNullable<Config['mail']>;
  transport: MailTransport;
  pollMs?: number;
  batch?: number;
  leaseMs?: number;
  /** Compresses the retry schedule (tests). */
  retryScale?: number;
  log?: Logger;
  /** Wakes the loop when mail is queued (Database.listen); without it, it polls only. */
  listen?: Listen;
};

const HOUR = 3_600_000;

/** Sends one claimed mail, unless the researcher has since unsubscribed. */
async function deliver(m: ClaimedMail, o: MailWorkerOptions): Promise<MailOutcome> {
  if (m.researcher && !m.researcher.wanted) return { state: 'suppressed', reason: 'the researcher stopped these mails' };
  try {
    const composed = await composeMail(m, o.config, o.mail.from);
    await o.transport.send(composed);
    return { state: 'sent', encrypted: composed.encrypted };
  } catch (err) {
    const e = err as { message?: string; code?: string; responseCode?: number };
    // The error names the failure, not the message: nodemailer's errors carry no body.
    return { state: 'failed', error: `${e.code ?? 'error'}${e.responseCode ? ` ${e.responseCode}` : ''}: ${e.message ?? 'send failed'}`, permanent: isPermanentSmtpError(err) };
  }
}

/**
 * One pass: claim what is due, hold each recipient to MAIL_MAX_PER_RECIPIENT_PER_HOUR (counted from
 * what was sent in the last hour plus this pass, in filing order; the rest is suppressed, never
 * sent), send the others in parallel through the pooled transport, record each outcome.
 */
export async function runMailPass(db: Db, o: MailWorkerOptions, now = new Date()): Promise<Record<string, number>> {
  const claimed = await claimDueMail(db, now, { batch: o.batch ?? 100, leaseMs: o.leaseMs ?? 120_000 });
  const counts = await sentSince(db, claimed.map((m) => m.recipient), new Date(now.getTime() - HOUR));
  const tally: Record<string, number> = {};
  const sent: { id: string; encrypted: boolean }[] = [];
  await Promise.all(
    claimed.map(async (m) => {
      const r = m.recipient.toLowerCase();
      const n = counts.get(r) ?? 0;
      counts.set(r, n + 1);
      const out: MailOutcome = n >= o.mail.maxPerRecipientPerHour ? { state: 'suppressed', reason: `recipient limit: ${o.mail.maxPerRecipientPerHour} mails per hour` } : await deliver(m, o);
      if (out.state === 'sent') {
        sent.push({ id: m.id, encrypted: out.encrypted });
        return;
      }
      const result = await recordMailOutcome(db, m, out, new Date(), o.retryScale);
      if (out.state === 'failed') o.log?.warn({ mailId: m.id, kind: m.kind, result, error: out.error }, 'mail not sent');
      tally[result] = (tally[result] ?? 0) + 1;
    }),
  );
  // Sent mail is recorded together: one statement for the pass instead of one per mail. A crash
  // before it leaves the claims to expire and those mails to be sent again (at-least-once).
  await recordSent(db, sent, new Date());
  if (sent.length > 0) tally.sent = sent.length;
  return tally;
}

export type MailWorker = { nudge(): void; stop(): Promise<void> };

/** The mail sender of one process, on the shared poll loop; woken when mail is queued (migration 0020). */
export function startMailWorker(db: Db, o: MailWorkerOptions): MailWorker {
  const loop = startPollLoop(
    async () => {
      const t = await runMailPass(db, o);
      // A full batch may have more behind it.
      if (Object.values(t).reduce((a, b) => a + b, 0) >= (o.batch ?? 100)) loop.nudge();
    },
    {
      pollMs: o.pollMs ?? 5_000,
      onError: (err) => o.log?.error({ err }, 'mail pass failed; retrying at the next tick'),
      ...(o.listen ? { wake: { listen: o.listen, channel: WAKE_CHANNELS.mail } } : {}),
    },
  );
  return {
    nudge: loop.nudge,
    async stop() {
      await loop.stop();
      o.transport.close();
    },
  };
}
