import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export type ArrivedMail = { envelopeFrom: string; envelopeTo: string[]; raw: string; parsed: ParsedMail };

/**
 * A real SMTP server on loopback (the `smtp-server` package) that keeps what arrives. `stop()` and
 * `start()` take it down and bring it back on the same port (the SMTP-outage test); `hold()` leaves
 * messages unanswered, so the sender's attempts stay in flight (the crash test).
 */
export async function startSmtpPeer(port = 0) {
  const arrived: ArrivedMail[] = [];
  const waiters: (() => void)[] = [];
  let server: SMTPServer | undefined;
  // While holding, a message's data is read but never answered: the sender's attempt stays in flight.
  let holding = false;
  let held = 0;
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
          if (holding) {
            held++;
            return;
          }
          const raw = Buffer.concat(chunks).toString('utf8');
          void simpleParser(raw).then((parsed) => {
            const from = session.envelope.mailFrom;
            arrived.push({ envelopeFrom: from ? from.address : '', envelopeTo: session.envelope.rcptTo.map((r) => r.address), raw, parsed });
            for (const w of waiters.splice(0)) w();
            done();
          }, done);
        });
      },
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
  };
}
