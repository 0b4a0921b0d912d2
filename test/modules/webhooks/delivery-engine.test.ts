import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, isNull } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { auditLog, outboxEvents, webhookAttempts, webhookDeliveries, webhooks } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { newId } from '../../../src/kernel/ids.js';
import { AppError } from '../../../src/kernel/errors.js';
import { claimDueDeliveries } from '../../../src/modules/webhooks/claim-deliveries.js';
import { listDeliveries, redeliver, sendTestEvent } from '../../../src/modules/webhooks/delivery-log.js';
import { MAX_WEBHOOKS_PER_COMPANY, registerWebhook, rotateWebhookSecret, setWebhookEnabled } from '../../../src/modules/webhooks/webhook-endpoints.js';
import { runDeliveryCycle, startWebhookWorker } from '../../../src/modules/webhooks/webhook-worker.js';
import type { TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';
import { type Received, receiverSuite } from '../../helpers/receiver.js';

const suite = receiverSuite();
let d: TestDatabase;
let rx: Awaited<typeof suite.ready>['rx'];
before(async () => {
  ({ db: d, rx } = await suite.ready);
});

const ctx = operatorContext();
// Retry schedule compressed a million times: three days become about a third of a second.
const opts = { allowPrivate: true, retryScale: 1e-6, totalTimeoutMs: 3000 };

/** Stands in for a filed report: the outbox row the filing transaction writes. */
async function emit(companyId: string, data: Record<string, unknown> = {}, type = 'vulnerability.reported') {
  const id = newId();
  const payload = { type, timestamp: new Date().toISOString(), data: { submissionId: newId(), ...data } };
  await d.db.insert(outboxEvents).values({ id, companyId, type, payload, createdAt: new Date() });
  return { id, payload };
}

/** Runs delivery passes until no event awaits dispatch and nothing is pending (the compressed schedule makes retries due at once). */
async function drain(timeoutMs = 15_000) {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
    await runDeliveryCycle(d.db, opts);
    const pending = await d.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.state, 'pending'));
    const undispatched = await d.db.select({ id: outboxEvents.id }).from(outboxEvents).where(isNull(outboxEvents.dispatchedAt));
    if (pending.length === 0 && undispatched.length === 0) return;
    await sleep(5);
  }
  throw new Error('deliveries still pending');
}

const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };

describe('webhook delivery', () => {
  it('delivers a filed event, signed, to every matching endpoint of the company only', async () => {
    const a = await makeCompany(d.db);
    const b = await makeCompany(d.db);
    const all = await registerWebhook(d.db, ctx, a.id, { url: rx.url('/all') }, opts);
    const filtered = await registerWebhook(
      d.db,
      ctx,
      a.id,
      { url: rx.url('/reports'), event: 'vulnerability.reported', secret: 'a plain utf8 shared secret' },
      opts,
    );
    await registerWebhook(d.db, ctx, a.id, { url: rx.url('/sbom-only'), event: 'sbom.ingested' }, opts);
    await registerWebhook(d.db, ctx, b.id, { url: rx.url('/other-company') }, opts);
    const ev = await emit(a.id);
    await drain();
    assert.deepEqual(rx.seen.map((r) => r.path).sort(), ['/all', '/reports']);
    const got = verify(all.secret as string, rx.seen.find((r) => r.path === '/all') as Received);
    assert.deepEqual(got, ev.payload);
    assert.equal(filtered.secret, undefined, 'a given secret is not echoed back');
    verify(Buffer.from('a plain utf8 shared secret').toString('base64'), rx.seen.find((r) => r.path === '/reports') as Received);
  });

  it('retries a receiver that is down until it is back, with one webhook-id and fresh timestamps', async () => {
    const c = await makeCompany(d.db);
    const hook = await registerWebhook(d.db, ctx, c.id, { url: rx.url('/flaky') }, opts);
    let calls = 0;
    rx.respond(() => (++calls <= 3 ? { status: 503 } : { status: 200 }));
    const evs = [await emit(c.id), await emit(c.id)];
    await drain();
    const ok = rx.seen.filter((r) => r.path === '/flaky');
    const ids = new Set(ok.map((r) => r.headers['webhook-id']));
    assert.equal(ids.size, 2, 'one webhook-id per delivery, the same on each retry');
    const delivered = new Set(ok.map((r) => verify(hook.secret as string, r).data.submissionId));
    assert.deepEqual([...delivered].sort(), evs.map((e) => e.payload.data.submissionId).sort(), 'every event arrived');
    const rows = await d.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
    assert.ok(rows.every((r) => r.state === 'succeeded'));
    assert.ok(rows.some((r) => r.attempts > 1));
    const attempts = await d.db.select().from(webhookAttempts).where(eq(webhookAttempts.companyId, c.id));
    assert.equal(attempts.length, ok.length);
    assert.equal(attempts.filter((a) => a.status === 503).length, 3);
  });

  it("dead-letters after the last attempt, audits it, and tells the company's other endpoints", async () => {
    const c = await makeCompany(d.db);
    const dead = await registerWebhook(d.db, ctx, c.id, { url: rx.url('/dead') }, opts);
    const other = await registerWebhook(d.db, ctx, c.id, { url: rx.url('/watcher') }, opts);
    rx.respond((r) => (r.path === '/dead' ? { status: 500, body: 'boom' } : { status: 204 }));
    await emit(c.id);
    await drain();
    const [row] = await d.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.webhookId, dead.id), eq(webhookDeliveries.eventType, 'vulnerability.reported')));
    assert.equal(row?.state, 'dead');
    assert.equal(row?.attempts, 10);
    assert.equal(row?.lastStatus, 500);
    const told = rx.seen.filter((r) => r.path === '/watcher').map((r) => verify(other.secret as string, r));
    assert.deepEqual(told.map((t) => t.type).sort(), ['vulnerability.reported', 'webhook.delivery_dead_lettered']);
    assert.equal(told.find((t) => t.type === 'webhook.delivery_dead_lettered')?.data.webhookId, dead.id);
    assert.equal(rx.seen.filter((r) => r.path === '/dead' && r.body.includes('dead_lettered')).length, 0, 'the dead endpoint is not told about itself');
    const audit = await d.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, c.id), eq(auditLog.action, 'webhooks.delivery_dead_lettered')));
    assert.equal(audit.length, 1);
  });

  it('disables an endpoint that answers 410 and cancels its pending deliveries', async () => {
    const c = await makeCompany(d.db);
    const hook = await registerWebhook(d.db, ctx, c.id, { url: rx.url('/gone') }, { ...opts });
    rx.respond(() => ({ status: 410 }));
    await emit(c.id);
    await drain();
    const [w] = await d.db.select().from(webhooks).where(eq(webhooks.id, hook.id));
    assert.equal(w?.enabled, false);
    assert.match(w?.disabledReason ?? '', /410/);
    await emit(c.id);
    await drain();
    assert.equal(rx.seen.filter((r) => r.path === '/gone').length, 1, 'a disabled endpoint receives nothing more');
  });

  it('re-attempts a delivery whose worker died mid-attempt once its lease expires', async () => {
    const c = await makeCompany(d.db);
    await registerWebhook(d.db, ctx, c.id, { url: rx.url('/lease') }, opts);
    await emit(c.id);
    await runDeliveryCycle(d.db, { ...opts, concurrency: 0 }); // dispatch only
    const now = new Date();
    const claimed = await claimDueDeliveries(d.db, now, { batch: 10, perEndpoint: 4, perCompany: 4, leaseMs: 60_000 });
    assert.equal(claimed.length, 1); // ... and the "worker" crashes here without recording
    assert.equal((await runDeliveryCycle(d.db, opts, now)).length, 0, 'not taken while the lease holds');
    const outcomes = await runDeliveryCycle(d.db, opts, new Date(now.getTime() + 61_000));
    assert.deepEqual(outcomes, ['succeeded']);
    assert.equal(rx.seen.filter((r) => r.path === '/lease').length, 1);
  });

  it('signs with both secrets during a rotation overlap', async () => {
    const c = await makeCompany(d.db);
    const hook = await registerWebhook(d.db, ctx, c.id, { url: rx.url('/rotate') }, opts);
    const { secret } = await rotateWebhookSecret(d.db, ctx, { companyId: c.id, id: hook.id });
    await emit(c.id);
    await drain();
    const r = rx.seen.find((x) => x.path === '/rotate') as Received;
    verify(secret, r);
    verify(hook.secret as string, r);
  });

  it('refuses a loopback target at attempt time when private networks are not allowed', async () => {
    const c = await makeCompany(d.db);
    await registerWebhook(d.db, ctx, c.id, { url: rx.url('/ssrf') }, opts); // registered while allowed
    await emit(c.id);
    const out = await runDeliveryCycle(d.db, { ...opts, allowPrivate: false });
    assert.deepEqual(out, ['retry']);
    assert.equal(rx.seen.length, 0, 'the loopback listener saw no connection');
    const [row] = await d.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.companyId, c.id));
    assert.match(row?.lastError ?? '', /non-public/);
  });

  it("keeps delivering other companies' events while one endpoint hangs", async () => {
    const slow = await makeCompany(d.db);
    const fast = await makeCompany(d.db);
    const hanging = await registerWebhook(d.db, ctx, slow.id, { url: rx.url('/hang') }, opts);
    await registerWebhook(d.db, ctx, fast.id, { url: rx.url('/fast') }, opts);
    rx.respond((r) => (r.path === '/hang' ? { status: 0, hang: true } : { status: 204 }));
    for (let i = 0; i < 10; i++) await emit(slow.id);
    const worker = startWebhookWorker(d.db, { ...opts, concurrency: 8, perEndpoint: 2, pollMs: 20, totalTimeoutMs: 5000 });
    try {
      await sleep(300);
      for (let i = 0; i < 5; i++) await emit(fast.id);
      worker.nudge();
      const deadline = Date.now() + 4000;
      while (rx.seen.filter((r) => r.path === '/fast').length < 5 && Date.now() < deadline) await sleep(20);
      assert.equal(rx.seen.filter((r) => r.path === '/fast').length, 5, "all of the other company's events arrived while the endpoint hung");
      assert.ok(rx.seen.filter((r) => r.path === '/hang').length <= 2, 'the hanging endpoint holds at most its per-endpoint share');
    } finally {
      await worker.stop();
      await setWebhookEnabled(d.db, ctx, { companyId: slow.id, id: hanging.id, enabled: false }); // its retries must not leak into later tests
    }
  });
});

describe('fairness across companies (issue 24)', () => {
  it("delivers another company's event while one company's five tarpit endpoints hold their attempts", async () => {
    // Tarpits: accept the connection, never answer.
    const sockets = new Set<Socket>();
    const tarpits = await Promise.all(
      Array.from(
        { length: 5 },
        () =>
          new Promise<Server>((resolve) => {
            const srv = createServer((sock) => sockets.add(sock));
            srv.listen(0, '127.0.0.1', () => resolve(srv));
          }),
      ),
    );
    const greedy = await makeCompany(d.db);
    const other = await makeCompany(d.db);
    const hooks = [];
    for (const srv of tarpits)
      hooks.push(await registerWebhook(d.db, ctx, greedy.id, { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/hook` }, opts));
    await registerWebhook(d.db, ctx, other.id, { url: rx.url('/other') }, opts);
    rx.respond(() => ({ status: 204 }));
    for (let i = 0; i < 8; i++) await emit(greedy.id); // 40 deliveries
    const worker = startWebhookWorker(d.db, { ...opts, pollMs: 20, totalTimeoutMs: 8000, leaseMs: 30_000 });
    try {
      for (const deadline = Date.now() + 4000; sockets.size === 0 && Date.now() < deadline;) await sleep(20);
      assert.ok(sockets.size > 0, 'the tarpits hold attempts');
      await emit(other.id);
      worker.nudge();
      for (const deadline = Date.now() + 6000; !rx.seen.some((r) => r.path === '/other') && Date.now() < deadline;) await sleep(20);
      assert.ok(
        rx.seen.some((r) => r.path === '/other'),
        "the other company's event arrived",
      );
      const finished = await d.db.select({ id: webhookAttempts.id }).from(webhookAttempts).where(eq(webhookAttempts.companyId, greedy.id));
      assert.equal(finished.length, 0, 'while every tarpit attempt was still in flight');
      assert.ok(sockets.size <= 8, `the greedy company holds at most its 8 slots (held ${sockets.size})`);
    } finally {
      await worker.stop().catch(() => {});
      for (const h of hooks) await setWebhookEnabled(d.db, ctx, { companyId: greedy.id, id: h.id, enabled: false });
      for (const sock of sockets) sock.destroy();
      for (const srv of tarpits) srv.close();
    }
  });

  it('refuses a 26th endpoint of one company with a conflict', async () => {
    const c = await makeCompany(d.db);
    for (let i = 0; i < MAX_WEBHOOKS_PER_COMPANY; i++) await registerWebhook(d.db, ctx, c.id, { url: rx.url(`/many/${i}`) }, opts);
    await assert.rejects(
      registerWebhook(d.db, ctx, c.id, { url: rx.url('/many/extra') }, opts),
      (e: unknown) => e instanceof AppError && e.code === 'CONFLICT' && /at most 25 webhook endpoints/.test(e.message),
    );
    const rows = await d.db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.companyId, c.id));
    assert.equal(rows.length, MAX_WEBHOOKS_PER_COMPANY);
  });
});

describe('delivery log, test event, redelivery', () => {
  it('sends a test event to that endpoint only, logs it, and redelivers on request', async () => {
    const c = await makeCompany(d.db);
    const target = await registerWebhook(d.db, ctx, c.id, { url: rx.url('/target') }, opts);
    await registerWebhook(d.db, ctx, c.id, { url: rx.url('/bystander') }, opts);
    await sendTestEvent(d.db, ctx, c.id, target.id);
    await drain();
    assert.deepEqual(
      rx.seen.map((r) => r.path),
      ['/target'],
    );
    assert.equal(verify(target.secret as string, rx.seen[0] as Received).type, 'webhook.test');
    const log = await listDeliveries(d.db, c.id, target.id);
    assert.equal(log.length, 1);
    assert.equal(log[0]?.state, 'succeeded');
    assert.equal(log[0]?.lastStatus, 204);
    await redeliver(d.db, ctx, c.id, log[0]?.id as string);
    await drain();
    assert.equal(rx.seen.length, 2);
    assert.equal(rx.seen[1]?.headers['webhook-id'], rx.seen[0]?.headers['webhook-id'], 'a redelivery keeps its webhook-id');
  });

  it("answers not-found for another company's endpoint or delivery", async () => {
    const mine = await makeCompany(d.db);
    const theirs = await makeCompany(d.db);
    const hook = await registerWebhook(d.db, ctx, theirs.id, { url: rx.url('/theirs') }, opts);
    const isNotFound = (e: unknown) => e instanceof AppError && e.code === 'NOT_FOUND';
    await assert.rejects(listDeliveries(d.db, mine.id, hook.id), isNotFound);
    await assert.rejects(sendTestEvent(d.db, ctx, mine.id, hook.id), isNotFound);
    await sendTestEvent(d.db, ctx, theirs.id, hook.id);
    await drain();
    const [delivery] = await listDeliveries(d.db, theirs.id, hook.id);
    await assert.rejects(redeliver(d.db, ctx, mine.id, delivery?.id as string), isNotFound);
  });
});
