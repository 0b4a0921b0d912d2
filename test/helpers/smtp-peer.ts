import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { smtpTransport } from '../../src/modules/mail/mail-transport.js';
import type { MailWorkerOptions } from '../../src/modules/mail/mail-worker.js';
import { createTestApp, type TestApp } from './app.js';
import { suiteSetUp } from './suite.js';

export type ArrivedMail = { envelopeFrom: string; envelopeTo: string[]; raw: string; parsed: ParsedMail };

/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps what arrives. `stop()` and
 * `start()` take it down and bring it back on the same port (the SMTP-outage test); `hold()` leaves
 * messages unanswered, so the sender's attempts stay in flight (the crash test), until
 * `answerHeld()` accepts them; `delay(ms)` answers each message that much later.
 */
export async function startSmtpPeer(port = 0) {
  const arrived: ArrivedMail[] = [];
  const waiters: (() => void)[] = [];
  let server: SMTPServer | undefined;
  // While holding, a message's data is read but never answered: the sender's attempt stays in flight.
  let holding = false;
  let held = 0;
  let resets = 0;
  let waiting: (() => void)[] = [];
  let delayMs = 0;
  const start = async (p: number): Promise<number> => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      // No reverse DNS of 127.0.0.1 per connection (this machine has no resolver to ask).
      disableReverseLookup: true,
      logger: false,
      // An outage drops the client's idle pooled connections at once instead of waiting for them.
      closeTimeout: 50,
      onData(stream, session, done) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          const envelopeTo = session.envelope.rcptTo.map((r) => r.address);
          const from = session.envelope.mailFrom;
          const accept = () =>
            void simpleParser(raw).then((parsed) => {
              arrived.push({ envelopeFrom: from ? from.address : '', envelopeTo, raw, parsed });
              for (const w of waiters.splice(0)) w();
              done();
            }, done);
          if (holding) {
            held++;
            waiting.push(accept);
            return;
          }
          if (delayMs > 0) setTimeout(accept, delayMs);
          else accept();
        });
      },
    });
    // A sender killed mid-session (the crash tests) resets its connection, which smtp-server reports
    // as a server 'error' event; unheard, that is an uncaught exception in the test process. What
    // arrived is what the tests assert on, so a client's reset is only counted.
    server.on('error', () => {
      resets++;
    });
    await new Promise<void>((resolve) => server?.listen(p, '127.0.0.1', resolve));
    return (server?.server.address() as AddressInfo).port;
  };
  const bound = await start(port);
  const stop = () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  return {
    port: bound,
    url: `smtp://127.0.0.1:${bound}`,
    arrived,
    /** Connections the senders reset (a killed process's). */
    resets: () => resets,
    /** Resolves once at least `n` mails have arrived in all. */
    async waitFor(n: number): Promise<void> {
      while (arrived.length < n) await new Promise<void>((r) => waiters.push(r));
    },
    stop,
    start: () => start(bound),
    /** From now on, leave every message unanswered (`held()` counts them) until `release()`. */
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
    },
    held: () => held,
    /** Accepts every held message (its sender is still waiting for the answer). */
    answerHeld: () => {
      const w = waiting;
      waiting = [];
      for (const accept of w) accept();
    },
    /** From now on, answer each message `ms` after its data arrived (0: at once). */
    delay: (ms: number) => {
      delayMs = ms;
    },
  };
}

export type SmtpPeer = Awaited<ReturnType<typeof startSmtpPeer>>;
export type MailSuite = { peer: SmtpPeer; t: TestApp; o: MailWorkerOptions };

/**
 * A suite's loopback SMTP peer and an app that mails through it (`SMTP_URL`, `MAIL_FROM`
 * cradle@cradle.test, and `env`), with the worker options to send with (a pooled transport to the
 * peer, and `worker`): made before the suite, closed after it; `ready` resolves to them once made
 * (node:test runs a file's top-level hooks in no promised order against each other).
 */
export function mailSuite(
  env: Record<string, string> = {},
  worker: Partial<Pick<MailWorkerOptions, 'retryScale' | 'batch' | 'leaseMs' | 'pollMs'>> = {},
): { ready: Promise<MailSuite> } {
  const ready = suiteSetUp(async (onClose) => {
    const peer = await startSmtpPeer();
    onClose(() => peer.stop());
    const t = await createTestApp({ SMTP_URL: peer.url, MAIL_FROM: 'cradle@cradle.test', ...env });
    onClose(() => t.close());
    const mail = t.config.mail;
    assert.ok(mail, 'SMTP_URL and MAIL_FROM configure mail');
    const transport = smtpTransport(peer.url, mail.timeoutMs);
    onClose(() => transport.close());
    return { peer, t, o: { config: t.config, mail, transport, ...worker } };
  });
  return { ready };
}
