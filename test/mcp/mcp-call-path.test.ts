import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { type AnyClient, callTool, connectLegacy, connectModern, type ListeningApp, startListeningApp } from '../helpers/mcp.js';

// A tools/call is served by a server holding the called tool alone, and a cached read's result is
// kept with the cache's entry (docs/adr/0024-mcp-call-path.md): neither may carry one caller's
// company, key or data into another's call.

let t: ListeningApp;
let acme: Tenant;
let globex: Tenant;

before(async () => {
  t = await startListeningApp();
  acme = await makeTenant(t.database.db);
  globex = await makeTenant(t.database.db);
  for (const [tenant, names] of [
    [acme, ['Acme Router', 'Acme Camera']],
    [globex, ['Globex Lamp']],
  ] as const) {
    for (const name of names)
      await upsertProduct(t.database.db, operatorContext(), tenant.company.id, { name, identifier: name.toLowerCase().replace(' ', '-') });
  }
});
after(() => t.close());

const productNames = async (client: AnyClient): Promise<string[]> => {
  const res = await callTool(client, 'list_products');
  assert.equal(res.isError, undefined, JSON.stringify(res.content));
  return ((res.structuredContent?.result ?? []) as { name: string }[]).map((p) => p.name);
};

const toolRows = (keyId: string) =>
  t.database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.actorId, keyId), eq(auditLog.action, 'mcp.tool_call')));

describe('tools/call with two companies interleaved', () => {
  it("answers each key with its own company's products, both client lines, and audits each call under its own key", async () => {
    const keyA = await makeKey(t.database.db, acme);
    const keyB = await makeKey(t.database.db, globex);
    const clients = await Promise.all([connectModern(t, keyA.key), connectLegacy(t, keyA.key), connectModern(t, keyB.key), connectLegacy(t, keyB.key)]);
    const own = ['acme', 'acme', 'globex', 'globex'] as const;
    try {
      // Rounds of concurrent calls alternating between the companies, so the calls of both are in
      // flight together and each reads the cached list after the other's first call made it.
      for (let round = 0; round < 5; round++) {
        const answers = await Promise.all(clients.map((c) => productNames(c)));
        answers.forEach((names, i) =>
          assert.deepEqual(names, own[i] === 'acme' ? ['Acme Camera', 'Acme Router'] : ['Globex Lamp'], `client ${i}, round ${round}`),
        );
      }
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    for (const [key, tenant] of [
      [keyA, acme],
      [keyB, globex],
    ] as const) {
      const rows = await toolRows(key.id);
      assert.equal(rows.length, 10, 'one row per call: 2 clients x 5 rounds');
      assert.ok(
        rows.every((r) => r.details.tool === 'list_products' && r.outcome === 'success' && r.companyId === tenant.company.id),
        JSON.stringify(rows.map((r) => [r.details.tool, r.outcome, r.companyId])),
      );
    }
  });

  it('answers the new list after a product is added: a kept result lives no longer than the cached read', async () => {
    const key = await makeKey(t.database.db, globex);
    const client = await connectModern(t, key.key);
    try {
      assert.deepEqual(await productNames(client), ['Globex Lamp']);
      await upsertProduct(t.database.db, operatorContext(), globex.company.id, { name: 'Globex Kettle', identifier: 'globex-kettle' });
      assert.deepEqual(await productNames(client), ['Globex Kettle', 'Globex Lamp']);
    } finally {
      await client.close();
    }
  });

  it('answers a call of a tool the plan does not offer as unknown, and still lists and calls what it offers', async () => {
    const low = await makeTenant(t.database.db);
    const key = await makeKey(t.database.db, low);
    await updateCompany(t.database.db, operatorContext(), low.company.slug, { plan: 'reporting' });
    for (const connect of [connectModern, connectLegacy]) {
      const client = await connect(t, key.key);
      try {
        await assert.rejects(callTool(client, 'list_products'), /Tool list_products not found/);
        const task = await callTool(client, 'get_next_task');
        assert.equal(task.isError, undefined);
        assert.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['get_next_deadline', 'get_next_task']);
      } finally {
        await client.close();
      }
    }
  });
});
