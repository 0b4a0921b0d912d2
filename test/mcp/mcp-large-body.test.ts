import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateCycloneDx } from '../../bench/evidence-data.js';
import { operatorContext } from '../../src/kernel/context.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { makeKey, makeTenant } from '../helpers/access.js';
import { type AnyClient, callTool, connectModern, type ListeningApp, startListeningApp } from '../helpers/mcp.js';

// Issue 24 leftover: an MCP push_sbom carries the whole document inside the JSON-RPC body. A body
// larger than other JSON routes accept is parsed on a worker and the document reaches the push as
// bytes: the event loop never runs JSON.parse over it. Smaller calls are parsed as before.

describe('MCP request bodies larger than 1 MiB', { timeout: 120_000 }, () => {
  let t: ListeningApp;
  let client: AnyClient;
  let key = '';
  const realParse = JSON.parse;
  let largestParsed = 0;

  before(async () => {
    t = await startListeningApp();
    const tenant = await makeTenant(t.database.db);
    key = (await makeKey(t.database.db, tenant)).key;
    for (const identifier of ['big', 'small', 'text'])
      await upsertProduct(t.database.db, operatorContext(), tenant.company.id, { name: identifier, identifier });
    client = await connectModern(t, key);
    // Every JSON.parse of this process's main thread (the server's and the client's): the largest text.
    JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      largestParsed = Math.max(largestParsed, String(text).length);
      return realParse(text, reviver);
    }) as typeof JSON.parse;
  });
  after(async () => {
    JSON.parse = realParse;
    await client?.close();
    await t?.close();
  });

  it('pushes a 4 MiB SBOM through push_sbom without parsing it on the event loop, as REST stores it', async () => {
    const doc = generateCycloneDx(10_000);
    assert.ok(doc.length > 4 * 1024 * 1024);
    largestParsed = 0;
    const res = await callTool(client, 'push_sbom', { product: 'big', document: realParse(doc.toString('utf8')) as unknown });
    assert.ok(!res.isError, JSON.stringify(res).slice(0, 500));
    assert.equal(res.structuredContent?.componentCount, 10_000);
    assert.ok(largestParsed < 1024 * 1024, `the largest JSON.parse on the main thread read ${largestParsed} characters`);
  });

  it('answers a large invalid document with the same problem as a small one', async () => {
    const bad = (n: number) => {
      const d = realParse(generateCycloneDx(n).toString('utf8')) as { components: { name: unknown }[] };
      (d.components[n - 1] as { name: unknown }).name = 42;
      return d;
    };
    for (const n of [10, 10_000]) {
      const res = await callTool(client, 'push_sbom', { product: 'small', document: bad(n) });
      assert.equal(res.isError, true);
      assert.match(res.content[0]?.text ?? '', new RegExp(`: the document is not valid CycloneDX 1\\.6: /components/${n - 1}/name must be string`));
    }
  });

  it('takes the document as text when it is sent as a string, large or small', async () => {
    for (const n of [10, 10_000]) {
      const res = await callTool(client, 'push_sbom', { product: 'text', document: generateCycloneDx(n).toString('utf8') });
      assert.ok(!res.isError, JSON.stringify(res).slice(0, 500));
      assert.equal(res.structuredContent?.componentCount, n);
    }
  });
});
