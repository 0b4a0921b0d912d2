import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { isNull } from 'drizzle-orm';
import { openDatabase } from '../../../src/db/client.js';
import { outboxEvents } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { smtpTransport } from '../../../src/modules/mail/mail-transport.js';
import { type MailWorker, startMailWorker } from '../../../src/modules/mail/mail-worker.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { sendTestEvent } from '../../../src/modules/webhooks/delivery-log.js';
import { registerWebhook } from '../../../src/modules/webhooks/webhook-endpoints.js';
import { startWebhookWorker, type WebhookWorker } from '../../../src/modules/webhooks/webhook-worker.js';
import { bearer, makeKey, makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';
import { publishedAdvisory } from '../../helpers/advisories.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { dashboardClient } from '../../helpers/dashboard.js';
import { startReceiver } from '../../helpers/receiver.js';
import { startSmtpPeer } from '../../helpers/smtp-peer.js';

// Issue 23: queued work wakes its worker through the database (migration 0020), whoever wrote it.
// The workers poll only every ten minutes here, so only the wake-up can deliver within the test.

const TEN_MINUTES = 600_000;
let t: TestApp;
let acme: Tenant;
let globex: Tenant;
let rx: Awaited<ReturnType<typeof startReceiver>>;
let peer: Awaited<ReturnType<typeof startSmtpPeer>>;
let worker: WebhookWorker;
let mailer: MailWorker;
let hooks: { withdrawn: string; status: string; test: string };

type Delivered = { type: string; data: Record<string, unknown> };

/** Waits for a delivery at `path` that `about` accepts; fails after 5 s (a poll would take ten minutes). */
async function delivered(path: string, about: (d: Delivered) => boolean): Promise<Delivered> {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; await sleep(10)) {
    const hit = rx.seen.map((r) => (r.path === path ? (JSON.parse(r.body) as Delivered) : undefined)).find((d) => d && about(d));
    if (hit) return hit;
  }
  assert.fail(`no such delivery reached ${path}`);
}

before(async () => {
  rx = await startReceiver();
  peer = await startSmtpPeer();
  t = await createTestApp({ SMTP_URL: peer.url, MAIL_FROM: 'cradle@cradle.test' });
  acme = await makeTenant(t.database.db);
  globex = await makeTenant(t.database.db);
  const ctx = operatorContext();
  const reg = async (c: Tenant, event: string, path: string) =>
    (await registerWebhook(t.database.db, ctx, c.company.id, { url: rx.url(path), event }, { allowPrivate: true })).id;
  // Each endpoint takes one event type, and the set-ups queue none of them: no attempt of theirs
  // ends (an ending attempt runs the loop once more) and lets a pass find the tested event.
  // Acme's advisory set-up changes report statuses, so the status endpoint is Globex's.
  hooks = {
    withdrawn: await reg(acme, 'advisory.withdrawn', '/withdrawn'),
    status: await reg(globex, 'vulnerability.status_changed', '/status'),
    test: await reg(acme, 'webhook.test', '/test'),
  };
  const mail = t.config.mail;
  assert.ok(mail);
  worker = startWebhookWorker(t.database.db, { allowPrivate: true, pollMs: TEN_MINUTES, listen: t.database.listen });
  mailer = startMailWorker(t.database.db, { config: t.config, mail, transport: smtpTransport(peer.url), pollMs: TEN_MINUTES, listen: t.database.listen });
});
after(async () => {
  await worker.stop();
  await mailer.stop();
  await t.close();
  await rx.close();
  await peer.stop();
});

/** The set-up's events are dispatched: the worker's first pass is over, and only a wake-up runs the next. */
async function settled(): Promise<void> {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; await sleep(10)) {
    if ((await t.database.db.select({ id: outboxEvents.id }).from(outboxEvents).where(isNull(outboxEvents.dispatchedAt))).length === 0) return;
  }
  assert.fail('the first pass did not dispatch the set-up events');
}

describe('queued work wakes its worker at commit, without waiting for a poll', () => {
  it("delivers a withdrawn advisory's event", async () => {
    const adv = await publishedAdvisory(t.database.db, acme.company);
    await settled();
    const k = await makeKey(t.database.db, acme);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/advisories/${adv.id}/withdraw`,
      headers: bearer(k.key),
      payload: { reason: 'Issued for the wrong product line' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const ev = await delivered('/withdrawn', (d) => d.data.advisoryId === adv.id);
    assert.equal(ev.type, 'advisory.withdrawn');
    assert.equal(ev.data.version, '2');
  });

  it('delivers the event of a status change made in the dashboard', async () => {
    const { report } = await fileReport(t.database.db, operatorContext(), globex.company, { description: 'Heap overflow in the MQTT bridge' }, 'api');
    await settled();
    const client = dashboardClient(t, await signInCookie(t, globex.admin.email));
    const res = await client.form(`/reports/${report.submissionId}/status`, { status: 'triaging' });
    assert.equal(res.statusCode, 303);
    const ev = await delivered('/status', (d) => d.data.submissionId === report.submissionId);
    assert.equal(ev.type, 'vulnerability.status_changed');
    assert.equal(ev.data.to, 'triaging');
  });

  // The mail worker's first pass ran while the tests above ran; only a wake-up runs another.
  it('sends mail queued by a dashboard invitation', async () => {
    const client = dashboardClient(t, await signInCookie(t, acme.admin.email));
    const before = peer.arrived.length;
    const res = await client.form('/settings/team/invitations', { email: 'woken@example.org', role: 'viewer' });
    assert.equal(res.statusCode, 201, res.body);
    const arrived = Promise.race([peer.waitFor(before + 1).then(() => true), sleep(5_000).then(() => false)]);
    assert.equal(await arrived, true, 'the invitation was sent without waiting for a poll');
    assert.deepEqual(peer.arrived.at(-1)?.envelopeTo, ['woken@example.org']);
  });

  it("wakes this instance's worker for a write made by another instance (PostgreSQL)", { skip: !process.env.DATABASE_URL }, async () => {
    assert.ok(t.database.url);
    await settled();
    const other = await openDatabase({ databaseUrl: t.database.url, poolSize: 2 });
    try {
      await other.migrate();
      await sendTestEvent(other.db, operatorContext(), acme.company.id, hooks.test);
      const ev = await delivered('/test', (d) => d.data.webhookId === hooks.test);
      assert.equal(ev.type, 'webhook.test');
    } finally {
      await other.close();
    }
  });
});
