import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { type Listen, WAKE_CHANNELS } from '../../db/notifications.js';
import { startPollLoop } from '../../db/poll-loop.js';
import { mailSender, type Tally } from './mail-sender.js';
import type { MailTransport } from './mail-transport.js';

export type MailWorkerOptions = {
  config: Config;
  mail: NonNullable<Config['mail']>;
  transport: MailTransport;
  pollMs?: number;
  /** Mails claimed ahead of the connections at most, default 200 (the worker claims more when half are gone; `runMailPass` claims this many). */
  batch?: number;
  leaseMs?: number;
  /** Compresses the retry schedule (tests). */
  retryScale?: number;
  log?: Logger;
  /** Wakes the loop when mail is queued (Database.listen); without it, it polls only. */
  listen?: Listen;
};

/**
 * One pass, all of it awaited (tests, and the shape of the worker's work): claim what is due, hold
 * each recipient to MAIL_MAX_PER_RECIPIENT_PER_HOUR, send the others through the pooled transport,
 * record every outcome. Returns how many ended how (`sent`, `suppressed`, `retry`, `dead`).
 */
export async function runMailPass(db: Db, o: MailWorkerOptions, now = new Date()): Promise<Tally> {
  const s = mailSender(db, o);
  await s.claim(now, o.batch ?? 200);
  await s.settled();
  return s.flush();
}

export type MailWorker = { nudge(): void; stop(): Promise<void> };

/**
 * The mail sender of one process, on the shared poll loop; woken when mail is queued (migration
 * 0020's notification, which counts as a nudge: mail was queued since the last claim). Sends do
 * not wait for passes, nor passes for a batch's sends: a pass records the outcomes so far and,
 * when half the claimed mail has gone to the server, claims more, so the connections stay busy
 * while the database works. A pass also runs once every send is answered (to record them), and
 * every `pollMs` while nothing else wakes it.
 */
export function startMailWorker(db: Db, o: MailWorkerOptions): MailWorker {
  const window = o.batch ?? 200;
  const pollMs = o.pollMs ?? 5_000;
  const s = mailSender(db, o);
  let stopping = false;
  // The last claim found less than it asked for: claim again only when nudged (mail was queued
  // since the last claim began) or after pollMs.
  let drained = false;
  let nudged = false;
  let lastClaim = 0;
  const listen = o.listen;
  const loop = startPollLoop(
    async () => {
      s.sweep();
      const claim = !stopping && s.queued() <= window / 2 && (!drained || nudged || Date.now() - lastClaim >= pollMs);
      // Outcomes are recorded before every claim (its count must see them), once all is answered,
      // and when many wait; not on every pass, which would record a few rows at a time.
      if (claim || !s.busy() || s.unrecorded() >= window / 2) await s.flush();
      if (!claim) return;
      nudged = false;
      lastClaim = Date.now();
      const room = window - s.queued();
      drained = (await s.claim(new Date(), room)) < room;
      // Free connections took most of it at once: claim again right after (at most `batch` wait).
      if (!drained && s.queued() <= window / 2) loop.nudge();
    },
    {
      pollMs,
      onError: (err) => o.log?.error({ err }, 'mail pass failed; retrying at the next tick'),
      ...(listen
        ? {
            wake: {
              listen: (channel: string, fn: (payload: string) => void) => listen(channel, (payload) => ((nudged = true), fn(payload))),
              channel: WAKE_CHANNELS.mail,
            },
          }
        : {}),
    },
  );
  s.onProgress = () => {
    if (stopping) return;
    // Room for more, or everything answered (record it), or many outcomes waiting.
    if ((!drained && s.queued() <= window / 2) || !s.busy() || s.unrecorded() >= window / 2) loop.nudge();
  };
  return {
    nudge() {
      nudged = true;
      loop.nudge();
    },
    async stop() {
      stopping = true;
      await loop.stop();
      // Mail not yet handed to the server goes back at once (another instance may send it now);
      // what is being sent ends (bounded by MAIL_TIMEOUT_SECONDS) and is recorded.
      s.releaseWaiting();
      try {
        await s.flush();
        await s.settled();
        await s.flush();
      } catch (err) {
        o.log?.error({ err }, 'mail outcomes not recorded at stop; those mails are sent again once their lease ends (at-least-once)');
      }
      o.transport.close();
    },
  };
}
