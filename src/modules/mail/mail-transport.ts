import { createTransport } from 'nodemailer';
import type { ComposedMail } from './compose-mail.js';

export type MailTransport = {
  send(m: ComposedMail): Promise<void>;
  close(): void;
  /** How many sends it takes at once without queueing them (the pool's connections). */
  concurrency: number;
};

/**
 * The SMTP pool: connections kept open to the operator's server and reused. `maxMessages` is
 * nodemailer's default (a connection is renewed after 100 messages); see docs/performance.md for
 * the connection count.
 */
export const SMTP_POOL = { maxConnections: 5, maxMessages: 100 } as const;

/** The waits of one attempt: connecting and the greeting at most 10 s each, then `timeoutMs` of silence. */
const waits = (timeoutMs: number) => ({
  connectionTimeout: Math.min(10_000, timeoutMs),
  greetingTimeout: Math.min(10_000, timeoutMs),
  socketTimeout: timeoutMs,
});

/** The longest one attempt can take: connecting, the greeting and the silence allowed after them. */
export function mailAttemptMs(timeoutMs: number): number {
  const w = waits(timeoutMs);
  return w.connectionTimeout + w.greetingTimeout + w.socketTimeout;
}

/**
 * How long a claimed mail stays with its sender: longer than any live attempt can take (twice every
 * wait, plus 5 s), so only a sender that died loses it, and then another sends it (at-least-once).
 */
export function mailLeaseMs(timeoutMs: number): number {
  return 2 * mailAttemptMs(timeoutMs) + 5_000;
}

/** SMTP through nodemailer, pooled, with bounded waits: a silent server fails an attempt, never hangs it. */
export function smtpTransport(url: string, timeoutMs = 30_000, pool: { maxConnections: number; maxMessages: number } = SMTP_POOL): MailTransport {
  const t = createTransport({ url, pool: true, ...pool, ...waits(timeoutMs) } as Parameters<typeof createTransport>[0]);
  return {
    concurrency: pool.maxConnections,
    async send(m) {
      await t.sendMail({
        from: m.from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        html: m.html,
        headers: m.headers,
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
    close: () => t.close(),
  };
}

/**
 * A refusal of the recipient itself (no such mailbox, not accepted, bad address) will not change on
 * retry. Other 5xx (authentication, a server's policy) are the operator's to fix, so they retry.
 */
export function isPermanentSmtpError(err: unknown): boolean {
  const code = (err as { responseCode?: unknown }).responseCode;
  return code === 550 || code === 551 || code === 553;
}
