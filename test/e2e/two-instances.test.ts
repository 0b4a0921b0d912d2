import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { webhookAttempts } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { registerWebhook } from '../../src/modules/webhooks/webhook-endpoints.js';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { TEST_PASSWORD } from '../helpers/factories.js';
import { connectModern, type ListeningApp } from '../helpers/mcp.js';
import { startReceiver } from '../helpers/receiver.js';
import { freePort, type ServerProcess, startServer } from '../helpers/processes.js';

const skip =
  process.env.DATABASE_URL && process.env.REDIS_URL
    ? false
    : 'needs DATABASE_URL and REDIS_URL: two instances can share a limit only through PostgreSQL and Redis';

/**
 * Issue 11 "Scale-out": two instances on one PostgreSQL and one Redis. Rate limits are global,
 * sessions are valid on every instance, each webhook attempt is processed once, and MCP is served by
 * any instance.
 */
describe('two server instances sharing PostgreSQL and Redis', { skip }, () => {
  let database: TestDatabase;
  const servers: ServerProcess[] = [];
  let tenant: Tenant;
  let key = '';
  let otherKey = '';
  let secret = '';
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    database = await createTestDatabase();
    receiver = await startReceiver();
    tenant = await makeTenant(database.db);
    key = (await makeKey(database.db, tenant)).key;
    // The rate-limit case spends the first key's minute; the other cases use their own key.
    otherKey = (await makeKey(database.db, tenant, { name: 'second' })).key;
    secret = (await registerWebhook(database.db, operatorContext(), tenant.company.id, { url: receiver.url() }, { allowPrivate: true })).secret ?? '';
    const [a, b] = [await freePort(), await freePort()];
    // Both answer for the same PUBLIC_URL host; the port is not part of the zone check.
    const env = {
      DATABASE_URL: database.url ?? '',
      REDIS_URL: process.env.REDIS_URL ?? '',
      PUBLIC_URL: `http://127.0.0.1:${a}`,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    };
    servers.push(
      await startServer(env, { port: a, production: true, inheritDatabase: true }),
      await startServer(env, { port: b, production: true, inheritDatabase: true }),
    );
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await receiver?.close();
    await database?.drop();
  });

  it('accept a session signed in on one instance on the other, and sign it out everywhere', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const signIn = await fetch(`${a.url}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: tenant.admin.email, password: TEST_PASSWORD }),
    });
    assert.equal(signIn.status, 204);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const page = await fetch(`${b.url}/dashboard`, { headers: { cookie, accept: 'text/html' }, redirect: 'manual' });
    assert.equal(page.status, 200);
    assert.ok((await page.text()).includes(tenant.company.name));
    assert.equal((await fetch(`${b.url}/api/session`, { method: 'DELETE', headers: { cookie } })).status, 204);
    const later = await fetch(`${a.url}/dashboard`, { headers: { cookie, accept: 'text/html' }, redirect: 'manual' });
    assert.equal(later.status, 303, 'signed out on B means signed out on A');
  });

  it('process each webhook attempt once, whichever instance filed the report', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) {
      const s = servers[i % 2] as ServerProcess;
      const r = await fetch(`${s.url}/api/v1/vulnerabilities`, {
        method: 'POST',
        headers: { authorization: `Bearer ${otherKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ description: `Scale-out report ${i}: the telnet port accepts the default password.` }),
      });
      assert.equal(r.status, 201);
      ids.push(((await r.json()) as { submissionId: string }).submissionId);
    }
    const verifier = new Webhook(secret);
    const seen = () => receiver.seen.map((r) => verifier.verify(r.body, r.headers as Record<string, string>) as { data: { submissionId: string } });
    for (let waited = 0; !ids.every((id) => seen().some((p) => p.data.submissionId === id)); waited += 100) {
      assert.ok(waited < 30_000, 'not every report was delivered');
      await sleep(100);
    }
    // Both workers claim from the same queue: no webhook-id arrives twice, one attempt per delivery.
    await sleep(1000);
    const webhookIds = receiver.seen.map((r) => String(r.headers['webhook-id']));
    assert.equal(new Set(webhookIds).size, webhookIds.length, 'a delivery was posted twice');
    const attempts = await database.db.select({ deliveryId: webhookAttempts.deliveryId }).from(webhookAttempts);
    assert.equal(new Set(attempts.map((x) => x.deliveryId)).size, attempts.length, 'a delivery was attempted twice');
    assert.equal(attempts.length, 30);
  });

  it('serve MCP from either instance with the same answers', async () => {
    const answers = [];
    for (const s of servers) {
      const client = await connectModern({ mcpUrl: new URL('/api/mcp', s.url) } as ListeningApp, otherKey);
      const tools = await client.listTools();
      assert.ok(tools.tools.some((x) => x.name === 'export_vulnerabilities'));
      const result = await client.callTool({ name: 'export_vulnerabilities', arguments: { limit: 5 } });
      answers.push(JSON.stringify(result.structuredContent));
      await client.close();
    }
    assert.equal(answers[0], answers[1]);
    assert.match(answers[0] ?? '', /Scale-out report/);
  });

  it('refuse a key revoked on one instance on the very next request to the other (each caches keys, ADR 0011)', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess];
    const k = await makeKey(database.db, tenant, { name: 'revoked across instances' });
    const onA = () => fetch(`${a.url}/api/v1/products`, { headers: { authorization: `Bearer ${k.key}` } }).then((r) => r.status);
    assert.deepEqual([await onA(), await onA()], [200, 200]);
    const signIn = await fetch(`${b.url}/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: tenant.admin.email, password: TEST_PASSWORD }),
    });
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    assert.equal((await fetch(`${b.url}/api/settings/api-keys/${k.id}`, { method: 'DELETE', headers: { cookie } })).status, 204);
    assert.equal(await onA(), 401);
  });

  it('enforce one limit of 100 per 60 s per key across both', async () => {
    const hit = (s: ServerProcess, instance: number) =>
      fetch(`${s.url}/api/v1/products`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({
        instance,
        status: r.status,
        body: await r.text(),
      }));
    // 150 requests spread evenly over both instances, 30 at a time.
    const results: { instance: number; status: number }[] = [];
    for (let round = 0; round < 5; round++) {
      results.push(...(await Promise.all(Array.from({ length: 30 }, (_, i) => hit(servers[i % 2]!, i % 2)))));
    }
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429).length;
    assert.equal(ok.length, 100, `accepted ${ok.length}`);
    assert.equal(limited, 50, `refused ${limited}`);
    // Both instances accepted requests, yet together only 100: one shared limit, not one each.
    assert.ok(ok.some((r) => r.instance === 0) && ok.some((r) => r.instance === 1));
    const again = await Promise.all([hit(servers[0]!, 0), hit(servers[1]!, 1)]);
    assert.deepEqual(
      again.map((r) => r.status),
      [429, 429],
    );
  });
});
