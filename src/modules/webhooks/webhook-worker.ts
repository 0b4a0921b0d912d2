import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import { traced } from '../../kernel/telemetry.js';
import { createGroupCommit } from '../../db/group-commit.js';
import { type Listen, WAKE_CHANNELS } from '../../db/notifications.js';
import { startPollLoop } from '../../db/poll-loop.js';
import { type ClaimedDelivery, claimDueDeliveries } from './claim-deliveries.js';
import { type DispatchOptions, dispatchOutbox } from './dispatch-outbox.js';
import { type AttemptResult, postWebhook } from './post-webhook.js';
import { type Finished, type Outcome, recordAttempt, recordAttempts } from './record-attempt.js';
import { webhookHeaders } from './signing.js';

export type WorkerOptions = {
  allowPrivate: boolean;
  /** Attempts in flight per process. */
  concurrency?: number;
  /** Attempts in flight per endpoint (across processes). */
  perEndpoint?: number;
  /** Attempts in flight per company (across processes): a company's dead endpoints hold no more slots than this. */
  perCompany?: number;
  pollMs?: number;
  /** Lease of one attempt: longer than the total timeout, so a live attempt is never taken over. */
  leaseMs?: number;
  totalTimeoutMs?: number;
  /** Compresses the retry schedule (tests). */
  retryScale?: number;
  log?: Logger;
  /** The outbox's other consumers (queued e-mail), fanned out in the same dispatch. */
  dispatch?: DispatchOptions;
  /** Wakes the loop when an event is queued or a delivery sent again (Database.listen); without it, it polls only. */
  listen?: Listen;
};

/** Posts one claimed delivery, signed afresh: same webhook-id, new timestamp. */
function post(d: ClaimedDelivery, o: WorkerOptions): Promise<AttemptResult> {
  if (!d.enabled) return Promise.resolve({ status: 410, ok: false, latencyMs: 0, error: 'endpoint disabled' });
  // Nothing is sent unsigned: the attempt fails with the reason and is retried on the usual schedule
  // (the operator may yet configure the right key); the company's other endpoints go on.
  if (d.secretError !== undefined) return Promise.resolve({ status: null, ok: false, latencyMs: 0, error: d.secretError });
  // The span names the receiver's host only: a receiver URL's path or query can hold its own secret.
  return traced(
    'webhook POST',
    () => ({ 'server.address': hostOf(d.url), 'http.request.method': 'POST' }),
    async (span) => {
      const result = await postWebhook(d.url, webhookHeaders(`msg_${d.id}`, d.body, d.secrets, new Date()), d.body, {
        allowPrivate: o.allowPrivate,
        totalTimeoutMs: o.totalTimeoutMs ?? 15_000,
      });
      if (result.status !== null) span.set({ 'http.response.status_code': result.status });
      if (!result.ok) span.fail(result.status === null ? 'no response' : `status ${result.status}`);
      return result;
    },
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'invalid';
  }
}

/** Posts one claimed delivery and records the outcome. */
export async function attemptDelivery(db: Db, d: ClaimedDelivery, o: WorkerOptions): Promise<Outcome> {
  const result = await post(d, o);
  return recordAttempt(db, d, result, new Date(), { retryScale: o.retryScale });
}

const claim = (db: Db, o: WorkerOptions, capacity: number, now: Date) =>
  claimDueDeliveries(db, now, { batch: capacity, perEndpoint: o.perEndpoint ?? 8, perCompany: o.perCompany ?? 8, leaseMs: o.leaseMs ?? 60_000 });

/** One awaited pass (tests, tools): dispatch new events, attempt everything due, record outcomes. */
export async function runDeliveryCycle(db: Db, o: WorkerOptions, now = new Date()): Promise<Outcome[]> {
  await dispatchOutbox(db, now, o.dispatch);
  const claimed = await claim(db, o, o.concurrency ?? 32, now);
  return Promise.all(claimed.map((d) => attemptDelivery(db, d, o)));
}

export type WebhookWorker = { nudge(): void; stop(): Promise<void>; inFlight(): number };

/**
 * The background loop of one process. Attempts run detached, at most `concurrency` at once; the
 * loop keeps dispatching and claiming while they are in flight, so one slow endpoint never holds up
 * the rest. It runs every `pollMs`, at once when woken (an event was queued, on any instance:
 * migration 0020), and whenever half of its slots have come free. Outcomes are group-committed. Several processes may run it against one PostgreSQL: claims are leased and
 * taken with `skip locked`. A failing pass (database briefly away) is logged and retried next tick.
 */
export function startWebhookWorker(db: Db, o: WorkerOptions): WebhookWorker {
  const concurrency = o.concurrency ?? 32;
  const attempts = new Set<Promise<unknown>>();
  // Outcomes are group-committed: under load one transaction records many attempts.
  const recorder = createGroupCommit((batch: Finished[]) => recordAttempts(db, batch, { retryScale: o.retryScale }), { maxBatch: 200 });
  const pass = async () => {
    const now = new Date();
    await dispatchOutbox(db, now, o.dispatch);
    const capacity = concurrency - attempts.size;
    if (capacity <= 0) return;
    for (const d of await claim(db, o, capacity, now)) {
      const p: Promise<unknown> = post(d, o)
        .then((r) => recorder.submit({ d, r, at: new Date() }))
        .catch((err: unknown) => o.log?.error({ err, deliveryId: d.id }, 'webhook attempt failed to record; its lease will expire and it will be retried'))
        .finally(() => {
          attempts.delete(p);
          // Refill once half the slots are free: one claim then serves many slots.
          if (attempts.size <= concurrency / 2) loop.nudge();
        });
      attempts.add(p);
    }
  };
  const loop = startPollLoop(pass, {
    pollMs: o.pollMs ?? 250,
    onError: (err) => o.log?.error({ err }, 'webhook delivery pass failed'),
    ...(o.listen ? { wake: { listen: o.listen, channel: WAKE_CHANNELS.webhooks } } : {}),
  });
  return {
    nudge: loop.nudge,
    inFlight: () => attempts.size,
    async stop() {
      await loop.stop();
      // Attempts in flight finish and record (bounded by their timeout), so none is left leased.
      await Promise.allSettled([...attempts]);
      await recorder.drain();
    },
  };
}
