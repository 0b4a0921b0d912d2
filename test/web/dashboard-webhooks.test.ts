import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { auditLog, webhookDeliveries } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { claimDueDeliveries } from '../../src/modules/webhooks/claim-deliveries.js';
import { dispatchOutbox } from '../../src/modules/webhooks/dispatch-outbox.js';
import { recordAttempt } from '../../src/modules/webhooks/record-attempt.js';
import { registerWebhook } from '../../src/modules/webhooks/webhook-endpoints.js';
import { runDeliveryCycle } from '../../src/modules/webhooks/webhook-worker.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { startReceiver } from '../helpers/receiver.js';

let t: TestApp;
let acme: Tenant;
let rival: Tenant;
let cookie: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

before(async () => {
  t = await createTestApp({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  acme = await makeTenant(t.database.db);
  rival = await makeTenant(t.database.db);
  cookie = await signInCookie(t, acme.admin.email);
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
});

const page = (url: string) => t.app.inject({ url, headers: { host: SITE, cookie } });
const csrfOf = (body: string): string => /name="_csrf" value="([0-9a-f]+)"/.exec(body)?.[1] ?? '';
async function form(url: string, fields: Record<string, string>, withCsrf = true) {
  const csrf = withCsrf ? csrfOf((await page('/settings/webhooks')).body) : '';
  const payload = new URLSearchParams({ ...fields, ...(withCsrf ? { _csrf: csrf } : {}) }).toString();
  return t.app.inject({ method: 'POST', url, headers: { host: SITE, cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload });
}
const idOf = (body: string, url: string): string => {
  const m = new RegExp(
    `data-webhook-id="([0-9a-f-]{36})"><td><a href="/settings/webhooks/[0-9a-f-]{36}"><code>${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`,
  ).exec(body);
  assert.ok(m, `no row for ${url}`);
  return m[1] as string;
};

describe('dashboard webhooks page', () => {
  it('adds an endpoint, shows its generated secret once, then lists it without the secret', async () => {
    const url = receiver.url('/added');
    const res = await form('/settings/webhooks', { url, event: '' });
    assert.equal(res.statusCode, 201, res.body);
    const secret = /id="new-secret" class="secret" readonly value="(whsec_[A-Za-z0-9+/=]+)"/.exec(res.body)?.[1];
    assert.ok(secret, 'the generated secret is shown');
    const list = await page('/settings/webhooks');
    assert.equal(list.statusCode, 200);
    idOf(list.body, url);
    assert.ok(!list.body.includes(secret), 'the secret is never shown again');
    const audit = await t.database.db.select().from(auditLog).where(eq(auditLog.action, 'webhooks.register'));
    assert.ok(audit.some((a) => a.companyId === acme.company.id && !JSON.stringify(a.details).includes(secret)));
  });

  it('re-renders the form with the entered values and a message for a bad URL or secret', async () => {
    const res = await form('/settings/webhooks', { url: 'ftp://example.com/x', event: 'vulnerability.reported', secret: 'short' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /aria-invalid="true"/);
    assert.match(res.body, /value="ftp:\/\/example.com\/x"/);
    assert.match(res.body, /<option value="vulnerability.reported" selected>/);
    assert.match(res.body, /Secret must be at least 16 characters\./);
  });

  it('sends a test event, shows the delivery with its result, and sends it again on request', async () => {
    const url = receiver.url('/detail');
    await form('/settings/webhooks', { url, event: '' });
    const id = idOf((await page('/settings/webhooks')).body, url);
    const sent = await form(`/settings/webhooks/${id}/test`, {});
    assert.equal(sent.statusCode, 303);
    assert.equal(sent.headers.location, `/settings/webhooks/${id}?done=test`);
    await runDeliveryCycle(t.database.db, { allowPrivate: true });
    assert.ok(receiver.seen.some((r) => r.path === '/detail' && JSON.parse(r.body).type === 'webhook.test'));
    const detail = await page(String(sent.headers.location));
    assert.match(detail.body, /A test event was queued/);
    const row = /<tr data-delivery-id="([0-9a-f-]{36})">.*?<code>webhook\.test<\/code>.*?status-active">delivered<\/span>.*?HTTP 204/s.exec(detail.body);
    assert.ok(row, detail.body);
    const again = await form(`/settings/webhooks/${id}/deliveries/${row[1]}/redeliver`, {});
    assert.equal(again.statusCode, 303);
    const [d] = await t.database.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.id, row[1] as string));
    assert.equal(d?.state, 'pending');
  });

  it('warns about dead-lettered deliveries and escapes what the receiver sent', async () => {
    const url = receiver.url('/dead');
    const hook = await registerWebhook(t.database.db, operatorContext(), acme.company.id, { url }, { allowPrivate: true });
    await form(`/settings/webhooks/${hook.id}/test`, {});
    await dispatchOutbox(t.database.db);
    const [claimed] = (await claimDueDeliveries(t.database.db, new Date(), { batch: 50, perEndpoint: 50, perCompany: 50, leaseMs: 60_000 })).filter(
      (d) => d.webhookId === hook.id,
    );
    assert.ok(claimed);
    // The last attempt of the schedule fails with a redirect whose target is hostile markup.
    const outcome = await recordAttempt(
      t.database.db,
      { ...claimed, attempt: 99 },
      { status: 302, ok: false, latencyMs: 3, error: 'redirect to https://x/"><script>alert(1)</script> not followed' },
      new Date(),
    );
    assert.equal(outcome, 'dead');
    const list = await page('/settings/webhooks');
    assert.match(list.body, /1 delivery was dead-lettered in the last 7 days/);
    const detail = await page(`/settings/webhooks/${hook.id}`);
    assert.ok(!detail.body.includes('<script>alert(1)</script>'));
    assert.match(detail.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  it('disables and enables an endpoint, rotates its secret (shown once) and deletes it', async () => {
    const hook = await registerWebhook(t.database.db, operatorContext(), acme.company.id, { url: receiver.url('/toggle') }, { allowPrivate: true });
    const off = await form(`/settings/webhooks/${hook.id}/enabled`, { enabled: 'false' });
    assert.equal(off.headers.location, `/settings/webhooks/${hook.id}?done=disabled`);
    assert.match((await page(`/settings/webhooks/${hook.id}`)).body, /status-suspended">disabled/);
    await form(`/settings/webhooks/${hook.id}/enabled`, { enabled: 'true' });
    assert.match((await page(`/settings/webhooks/${hook.id}`)).body, /status-active">enabled/);
    const rotated = await form(`/settings/webhooks/${hook.id}/rotate`, {});
    assert.equal(rotated.statusCode, 200);
    const secret = /id="new-secret" class="secret" readonly value="(whsec_[^"]+)"/.exec(rotated.body)?.[1];
    assert.ok(secret && secret !== hook.secret);
    assert.ok(!(await page(`/settings/webhooks/${hook.id}`)).body.includes(secret));
    const gone = await form(`/settings/webhooks/${hook.id}/delete`, {});
    assert.equal(gone.headers.location, '/settings/webhooks?done=deleted');
    assert.equal((await page(`/settings/webhooks/${hook.id}`)).statusCode, 404);
  });

  it("answers 404 for another company's endpoint and for malformed ids, and refuses a form without CSRF", async () => {
    const theirs = await registerWebhook(
      t.database.db,
      operatorContext(),
      rival.company.id,
      { url: 'https://rival.example.com/hook' },
      { allowPrivate: false },
    );
    const view = await page(`/settings/webhooks/${theirs.id}`);
    assert.equal(view.statusCode, 404);
    assert.ok(!view.body.includes('rival.example.com'));
    assert.equal((await form(`/settings/webhooks/${theirs.id}/delete`, {})).statusCode, 404);
    assert.equal((await page('/settings/webhooks/not-an-id')).statusCode, 404);
    assert.equal((await form(`/settings/webhooks/${theirs.id}/enabled`, { enabled: 'false' }, false)).statusCode, 403);
    const [still] = await t.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, theirs.id));
    assert.equal(still, undefined);
    assert.ok(!(await page('/settings/webhooks')).body.includes('rival.example.com'));
  });
});
