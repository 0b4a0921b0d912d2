import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { type Database, openDatabase } from '../../src/db/client.js';
import { operatorContext } from '../../src/kernel/context.js';
import { registerWebhook } from '../../src/modules/webhooks/register-webhook.js';
import { makeKey, makeTenant } from '../helpers/access.js';
import { createTestDatabase } from '../helpers/db.js';
import { startReceiver } from '../helpers/receiver.js';
import { freePort, type ServerProcess, startServer } from '../helpers/server-process.js';

/**
 * Issue 9: "with the server killed mid-delivery and restarted, every acknowledged report's event
 * still arrives". A real server process on the embedded database (or PostgreSQL when DATABASE_URL
 * is set) files reports over HTTP while its webhook endpoint hangs; the process is killed with
 * SIGKILL (no shutdown hook runs), started again, and every report that was answered 201 must reach
 * the receiver, signed, once its attempt's lease has run out.
 */
describe('webhook delivery across a crash', () => {
  let dataDir = '';
  let seedDb: Database & { url?: string | undefined; drop?: () => Promise<void> };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: ServerProcess | undefined;
  let env: Record<string, string> = {};
  let key = '';
  let secret = '';

  before(async () => {
    receiver = await startReceiver();
    dataDir = await mkdtemp(join(tmpdir(), 'cradle-crash-'));
    seedDb = process.env.DATABASE_URL ? await createTestDatabase() : await openDatabase({ dataDir });
    if (!process.env.DATABASE_URL) await seedDb.migrate();
    const tenant = await makeTenant(seedDb.db);
    key = (await makeKey(seedDb.db, tenant)).key;
    const hook = await registerWebhook(seedDb.db, operatorContext(), tenant.company.id, { url: receiver.url() }, { allowPrivate: true });
    secret = hook.secret ?? '';
    // The embedded database allows one process: hand it over to the server.
    if (!process.env.DATABASE_URL) await seedDb.close();
    env = {
      DATA_DIR: dataDir,
      ...(seedDb.url ? { DATABASE_URL: seedDb.url } : {}),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_SECONDS: '2',
    };
  });

  after(async () => {
    await server?.stop();
    await receiver.close();
    if (process.env.DATABASE_URL) await seedDb.drop?.();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('delivers every acknowledged report after SIGKILL and restart', { timeout: 120_000 }, async () => {
    // Until the crash the endpoint accepts connections and never answers: attempts are in flight.
    let crashed = false;
    receiver.respond(() => (crashed ? { status: 204 } : { status: 204, hang: true }));
    const port = await freePort();
    server = await startServer({ ...env, PUBLIC_URL: `http://127.0.0.1:${port}` }, port);
    const file = (i: number) =>
      fetch(`${server!.url}/api/v1/vulnerabilities`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ description: `Crash-test report ${i}`, vulnerabilityType: 'other' }),
      }).then(
        async (r) => (r.status === 201 ? ((await r.json()) as { submissionId: string }).submissionId : undefined),
        () => undefined,
      );

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
    server.child.kill('SIGKILL');
    await new Promise((r) => (server!.child.exitCode !== null || server!.child.signalCode !== null ? r(null) : server!.child.once('exit', r)));
    for (const id of await Promise.all(racing)) if (id) acknowledged.push(id);
    crashed = true;
    const seenBefore = receiver.seen.length;

    const port2 = await freePort();
    server = await startServer({ ...env, PUBLIC_URL: `http://127.0.0.1:${port2}` }, port2);

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
