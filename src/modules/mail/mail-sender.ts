import type { Db } from '../../db/client.js';
import { traced } from '../../kernel/telemetry.js';
import { composeMail } from './compose-mail.js';
import { foldIntoDigest } from './mail-digest.js';
import { mailBudget } from './mail-kinds.js';
import {
  type ClaimedMail,
  claimDueMail,
  type FoldOutcome,
  type MailOutcome,
  recordMailOutcome,
  recordSent,
  recordSuppressed,
  releaseMail,
  sentSince,
} from './mail-queue.js';
import { isPermanentSmtpError, mailAttemptMs } from './mail-transport.js';
import type { MailWorkerOptions } from './mail-worker.js';

const HOUR = 3_600_000;

/** Sends one claimed mail, unless the researcher has since unsubscribed. */
async function deliver(m: ClaimedMail, o: MailWorkerOptions): Promise<MailOutcome> {
  if (m.researcher && !m.researcher.wanted) return { state: 'suppressed', reason: 'the researcher stopped these mails' };
  try {
    const composed = await composeMail(m, o.config, o.mail.from);
    // The kind only: recipients and subjects stay out of traces.
    await traced(
      'mail send',
      () => ({ 'cradle.mail.kind': m.kind, 'cradle.mail.encrypted': composed.encrypted }),
      () => o.transport.send(composed),
    );
    return { state: 'sent', encrypted: composed.encrypted };
  } catch (err) {
    const e = err as { message?: string; code?: string; responseCode?: number };
    // The error names the failure, not the message: nodemailer's errors carry no body.
    return {
      state: 'failed',
      error: `${e.code ?? 'error'}${e.responseCode ? ` ${e.responseCode}` : ''}: ${e.message ?? 'send failed'}`,
      permanent: isPermanentSmtpError(err),
    };
  }
}

type Done = { m: ClaimedMail; out: MailOutcome | FoldOutcome; counted: boolean };
export type Tally = Record<string, number>;

/**
 * The sending side of one process: claimed mail waits in `queue` for one of the transport's
 * connections, at most `transport.concurrency` sends are under way, and each outcome waits in
 * `done` until `flush` records it (grouped: one statement for all sent mail, one per reason held
 * back). Claims, counts and records run one at a time (the worker's pass, or `runMailPass`), never
 * beside each other; sends run beside all of them.
 *
 * The per-recipient limit stays exact with sends under way: `inFlight` counts, per recipient, the
 * mails this process chose to send whose outcome is not recorded yet. A claim counts what the
 * database has as sent in the last hour plus `inFlight`; a flush moves mails from `inFlight` to the
 * database only after its statement committed, and never while a count is being read, so no mail
 * is counted twice or not at all.
 *
 * A mail is handed to the transport only while its lease outlasts a whole attempt (`attemptMs`),
 * so no other sender (nor this one's next claim) takes over a mail being sent; one that waited too
 * long is given back unsent (`releaseMail`) and claimed again.
 */
export function mailSender(db: Db, o: MailWorkerOptions) {
  const cap = o.mail.maxPerRecipientPerHour;
  const leaseMs = o.leaseMs ?? 120_000;
  // The lease left that a send needs to start: a whole attempt (never more than half a lease).
  const attemptMs = Math.min(mailAttemptMs(o.mail.timeoutMs), leaseMs / 2);
  const queue: ClaimedMail[] = [];
  const inFlight = new Map<string, number>();
  let done: Done[] = [];
  let released: ClaimedMail[] = [];
  let sending = 0;
  const settled: (() => void)[] = [];
  let onProgress = (): void => undefined;

  const key = (m: ClaimedMail) => m.recipient.toLowerCase();
  const uncount = (m: ClaimedMail) => {
    const n = (inFlight.get(key(m)) ?? 1) - 1;
    if (n > 0) inFlight.set(key(m), n);
    else inFlight.delete(key(m));
  };

  const wake = (): void => {
    if (sending === 0 && queue.length === 0) for (const f of settled.splice(0)) f();
  };

  /** Hands waiting mail to free connections; one whose lease is too short for an attempt goes back. */
  const start = (): void => {
    while (sending < o.transport.concurrency && queue.length > 0) {
      const m = queue.shift() as ClaimedMail;
      if (Date.now() + attemptMs > m.lockedUntil.getTime()) {
        released.push(m);
        continue;
      }
      sending++;
      void deliver(m, o)
        .catch((err: unknown): MailOutcome => ({ state: 'failed', error: `error: ${(err as Error)?.message ?? 'send failed'}`, permanent: false }))
        .then((out) => {
          sending--;
          done.push({ m, out, counted: true });
          start();
          onProgress();
        });
    }
    wake();
  };

  return {
    queued: () => queue.length,
    /** Outcomes and give-backs waiting to be recorded. */
    unrecorded: () => done.length + released.length,
    busy: () => sending > 0 || queue.length > 0,
    set onProgress(f: () => void) {
      onProgress = f;
    },

    /**
     * Claims up to `room` due mails, holds each recipient to the limit (the database's last hour
     * plus what this process has under way, in filing order, of the kinds the cap counts; past it a
     * new-report notice is folded into the hour's digest and other capped mail is held back, never
     * sent later; `always` kinds are neither counted nor held) and queues the others for sending.
     * Returns how many were claimed.
     */
    async claim(now: Date, room: number): Promise<number> {
      const claimed = await claimDueMail(db, now, { batch: room, leaseMs });
      if (claimed.length === 0) return 0;
      const counts = await sentSince(
        db,
        claimed.map((m) => m.recipient),
        new Date(now.getTime() - HOUR),
      );
      for (const m of claimed) {
        const budget = mailBudget(m.kind);
        const n = (counts.get(key(m)) ?? 0) + (inFlight.get(key(m)) ?? 0);
        if (budget !== 'always' && n >= cap) {
          const out =
            budget === 'digest' ? ({ state: 'folded', at: now } as const) : { state: 'suppressed' as const, reason: `recipient limit: ${cap} mails per hour` };
          done.push({ m, out, counted: false });
          continue;
        }
        if (budget !== 'always') inFlight.set(key(m), (inFlight.get(key(m)) ?? 0) + 1);
        queue.push(m);
      }
      start();
      return claimed.length;
    },

    /** Gives back waiting mail whose lease would end during an attempt (before a claim could take it again). */
    sweep(): void {
      const now = Date.now();
      for (let i = queue.length - 1; i >= 0; i--) {
        const m = queue[i] as ClaimedMail;
        if (now + attemptMs > m.lockedUntil.getTime()) released.push(...queue.splice(i, 1));
      }
      wake();
    },

    /** Gives back every mail still waiting for a connection (the sender stops). */
    releaseWaiting(): void {
      released.push(...queue.splice(0));
      wake();
    },

    /** Resolves once no mail waits or is being sent. */
    settled(): Promise<void> {
      return sending === 0 && queue.length === 0 ? Promise.resolve() : new Promise((r) => settled.push(r));
    },

    /**
     * Records every outcome so far, grouped; the recorded mails then leave `inFlight`. On a
     * database error nothing leaves: the outcomes are kept for the next flush.
     */
    async flush(): Promise<Tally> {
      const batch = done;
      const back = released;
      done = [];
      released = [];
      const tally: Tally = {};
      const add = (k: string, n: number) => {
        if (n > 0) tally[k] = (tally[k] ?? 0) + n;
      };
      const at = new Date();
      try {
        const sent = batch.flatMap((d) => (d.out.state === 'sent' ? [{ id: d.m.id, encrypted: d.out.encrypted }] : []));
        await recordSent(db, sent, at);
        add('sent', sent.length);
        const held = new Map<string, string[]>();
        for (const d of batch) if (d.out.state === 'suppressed') held.set(d.out.reason, [...(held.get(d.out.reason) ?? []), d.m.id]);
        for (const [reason, ids] of held) {
          await recordSuppressed(db, ids, reason, at);
          add('suppressed', ids.length);
        }
        const folds = batch.flatMap((d) => (d.out.state === 'folded' ? [{ m: d.m, at: d.out.at }] : []));
        await foldIntoDigest(db, folds);
        add('folded', folds.length);
        await releaseMail(db, back);
        // Failures are rare and each has its own retry time: one statement each.
        for (const d of batch) {
          if (d.out.state !== 'failed') continue;
          const result = await recordMailOutcome(db, d.m, d.out, at, o.retryScale);
          o.log?.warn({ mailId: d.m.id, kind: d.m.kind, result, error: d.out.error }, 'mail not sent');
          add(result, 1);
        }
      } catch (err) {
        // All of it is recorded again by the next flush (each statement only sets a state again);
        // meanwhile `inFlight` still counts these mails, and no claim runs before that flush.
        done.unshift(...batch);
        released.unshift(...back);
        throw err;
      }
      for (const d of batch) if (d.counted && mailBudget(d.m.kind) !== 'always') uncount(d.m);
      for (const m of back) if (mailBudget(m.kind) !== 'always') uncount(m);
      return tally;
    },
  };
}
