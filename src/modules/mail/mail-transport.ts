import { createTransport } from 'nodemailer';
import type { ComposedMail } from './compose-mail.js';

export type MailTransport = {
  send(m: ComposedMail): Promise<void>;
  close(): void;
};

/** SMTP through nodemailer, pooled, with bounded waits: a silent server fails an attempt, never hangs it. */
export function smtpTransport(url: string): MailTransport {
  const t = createTransport({ url, pool: true, maxConnections: 5, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 } as Parameters<typeof createTransport>[0]);
  return {
    async send(m) {
      await t.sendMail({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html, headers: m.headers, disableFileAccess: true, disableUrlAccess: true });
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
