import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { operatorContext } from '../../src/kernel/context.js';
import { registerWebhook } from '../../src/modules/webhooks/webhook-endpoints.js';
import { crashFixture, fileOverApi, killHard } from '../helpers/crash-fixture.js';
import { startReceiver } from '../helpers/receiver.js';
import { freePort, type ServerProcess, startServer } from '../helpers/processes.js';

/**
 * Issue 9: "with the server killed mid-delivery and restarted, every acknowledged report's event
 * still arrives". A real server process on the embedded database (or PostgreSQL when DATABASE_URL
 * is set) files reports over HTTP while its webhook endpoint hangs; the process is killed with
 * SIGKILL (no shutdown hook runs), started again, and every report that was answered 201 must reach
 * the receiver, signed, once its attempt's lease has run out.
 */
describe('webhook delivery across a crash', () => {
  let fx: Awaited<ReturnType<typeof crashFixture>>;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: ServerProcess | undefined;
  let env: Record<string, string> = {};
  let key = '';
  let secret = '';

  before(async () => {
    receiver = await startReceiver();
    fx = await crashFixture(async (db, tenant) => {
      const hook = await registerWebhook(db, operatorContext(), tenant.company.id, { url: receiver.url() }, { allowPrivate: true });
      secret = hook.secret ?? '';
    });
    key = fx.key;
    env = {
      ...fx.env,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_SECONDS: '2',
    };
  });

  after(async () => {
    await server?.stop();
    await receiver.close();
    await fx.cleanup();
  });

  it('delivers every acknowledged report after SIGKILL and restart', { timeout: 120_000 }, async () => {
    // Until the crash the endpoint accepts connections and never answers: attempts are in flight.
    let crashed = false;
    receiver.respond(() => (crashed ? { status: 204 } : { status: 204, hang: true }));
    const port = await freePort();
    server = await startServer({ ...env, PUBLIC_URL: `http://127.0.0.1:${port}` }, { port, production: true, inheritDatabase: true });
    const file = (i: number) => fileOverApi(server!, key, `Crash-test report ${i}`);

    const acknowledged: string[] = [];
    for (let i = 0; i < 10; i++) {
      const id = await file(i);
      assert.ok(id, `report ${i} was refused before the crash`);
      acknowledged.push(id);
    }
    // Wait until the worker has attempts in flight, then keep filing while the process is killed.
    for (let i = 0; receiver.seen.length === 0; i++) {
      assert.ok(i < 200, 'no delivery attempt reached the receiver');
      await sleep(50);
    }
    const racing = Array.from({ length: 10 }, (_, i) => file(100 + i));
    await killHard(server);
    for (const id of await Promise.all(racing)) if (id) acknowledged.push(id);
    crashed = true;
    const seenBefore = receiver.seen.length;

    const port2 = await freePort();
    server = await startServer({ ...env, PUBLIC_URL: `http://127.0.0.1:${port2}` }, { port: port2, production: true, inheritDatabase: true });

    const verifier = new Webhook(secret);
    const delivered = new Set<string>();
    for (let waited = 0; ; waited += 200) {
      for (const r of receiver.seen.slice(seenBefore)) {
        const payload = verifier.verify(r.body, {
          'webhook-id': String(r.headers['webhook-id']),
          'webhook-timestamp': String(r.headers['webhook-timestamp']),
          'webhook-signature': String(r.headers['webhook-signature']),
        }) as { type: string; data: { submissionId: string } };
        assert.equal(payload.type, 'vulnerability.reported');
        delivered.add(payload.data.submissionId);
      }
      if (acknowledged.every((id) => delivered.has(id))) break;
      assert.ok(waited < 60_000, `missing after restart: ${acknowledged.filter((id) => !delivered.has(id)).join(', ')}`);
      await sleep(200);
    }
    assert.ok(acknowledged.length >= 10);
  });
});
