import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { API_BASE } from '../../src/http/api-routes.js';
import { operatorContext } from '../../src/kernel/context.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { bearer, makeKey, makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { cycloneDx } from '../helpers/evidence.js';

// Issue 33, part 2: a company's evidence slot and the instance's in-flight bytes are taken before a
// document's body is read. Bodies here are held half-sent by a real socket, so what is in flight is
// the test's decision, not a race.

const MiB = 1024 * 1024;
let t: TestApp;
let origin = '';
const tenants: Tenant[] = [];
const keys: string[] = [];
const sbom = cycloneDx([{ name: 'zlib', version: '1.2.13' }], ['zlib']);

before(async () => {
  t = await createTestApp({ EVIDENCE_INFLIGHT_MAX_BYTES: String(5 * MiB), EVIDENCE_MAX_BYTES: String(3 * MiB) });
  for (let i = 0; i < 3; i++) {
    const tenant = await makeTenant(t.database.db);
    await upsertProduct(t.database.db, operatorContext(), tenant.company.id, { name: 'Box', identifier: 'box' });
    tenants.push(tenant);
    keys.push((await makeKey(t.database.db, tenant)).key);
  }
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(() => t.close());

/** A push whose body is declared `bytes` long and only begun: it holds its slot until `abort`. */
function halfSent(key: string, bytes: number) {
  const req = httpRequest(`${origin}${API_BASE}/sboms?product=box`, {
    method: 'POST',
    headers: { ...bearer(key), 'content-type': 'application/json', 'content-length': String(bytes) },
  });
  const answered = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
  });
  req.write('{"bomFormat": "CycloneDX", ');
  return { answered, abort: () => req.destroy() };
}

async function inFlight(documents: number): Promise<void> {
  while (t.app.evidenceGate.stats().documents !== documents) {
    await sleep(10);
  }
}

type Answer = { status: number; headers: Record<string, string | string[] | undefined>; json: () => unknown; text: string };
/** A whole request over the socket (fetch cannot send the site's Host header). */
function send(path: string, headers: Record<string, string>, body: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, json: () => JSON.parse(text), text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
const push = (key: string) => send(`${API_BASE}/sboms?product=box`, { ...bearer(key), 'content-type': 'application/json' }, sbom);

describe('evidence slots are taken before a body is read', { timeout: 60_000 }, () => {
  it("refuses a company's third document at once with 429 and Retry-After, while another company's push is stored", async () => {
    const held = [halfSent(keys[0] as string, MiB), halfSent(keys[0] as string, MiB)];
    await inFlight(2);
    const third = await push(keys[0] as string);
    assert.equal(third.status, 429);
    assert.equal(third.headers['retry-after'], '5');
    const problem = third.json() as { detail: string };
    assert.match(problem.detail, /2 documents of your company are already being received or read/);

    const other = await push(keys[1] as string);
    assert.equal(other.status, 201, other.text);
    assert.equal((other.json() as { componentCount: number }).componentCount, 1);

    for (const h of held) h.abort();
    await inFlight(0);
    const again = await push(keys[0] as string);
    assert.equal(again.status, 201, 'the slots come back when the held requests end');
  });

  it('refuses a document beyond the instance bytes bound, and admits a small one of another company', async () => {
    const held = [halfSent(keys[0] as string, 2 * MiB), halfSent(keys[1] as string, 2 * MiB)];
    await inFlight(2);
    const large = halfSent(keys[2] as string, 2 * MiB);
    assert.equal(await large.answered, 429, 'refused before its body was sent');
    const small = await push(keys[2] as string);
    assert.equal(small.status, 201, small.text);
    for (const h of held) h.abort();
    large.abort();
    await inFlight(0);
  });

  it("refuses a company's second large document while its first is in flight, and admits its small push and another company's large one", async () => {
    const first = halfSent(keys[0] as string, 2 * MiB);
    await inFlight(1);
    // 2 + 2 MiB of one company's documents would pass one largest document (EVIDENCE_MAX_BYTES, 3 MiB).
    const second = halfSent(keys[0] as string, 2 * MiB);
    assert.equal(await second.answered, 429, 'refused before its body was sent');
    assert.equal(t.app.evidenceGate.stats().bytes, 2 * MiB, 'the refused one holds nothing');
    const small = await push(keys[0] as string);
    assert.equal(small.status, 201, small.text);
    const other = halfSent(keys[1] as string, 2 * MiB);
    await inFlight(2);
    assert.equal(t.app.evidenceGate.stats().bytes, 4 * MiB);
    for (const h of [first, second, other]) h.abort();
    await inFlight(0);
    const again = halfSent(keys[0] as string, 2 * MiB);
    await inFlight(1);
    again.abort();
    await inFlight(0);
  });

  it('takes the same slot for an MCP document body and a dashboard upload', async () => {
    const held = [halfSent(keys[0] as string, MiB), halfSent(keys[0] as string, MiB)];
    await inFlight(2);
    const mcp = await send(
      '/api/mcp',
      { ...bearer(keys[0] as string), 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: `http://${SITE}` },
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'push_sbom', arguments: { product: 'box', document: 'x'.repeat(2 * MiB) } },
      }),
    );
    assert.equal(mcp.status, 429, mcp.text);
    assert.equal(mcp.headers['retry-after'], '5');

    const cookie = await signInCookie(t, (tenants[0] as Tenant).admin.email);
    const fd = new FormData();
    fd.append('_csrf', 'not read: the slot is taken before the form');
    fd.append('product', 'box');
    fd.append('document', new Blob([sbom], { type: 'application/json' }), 'bom.json');
    const encoded = new Request('http://localhost/', { method: 'POST', body: fd });
    const upload = await t.app.inject({
      method: 'POST',
      url: '/evidence/sboms',
      headers: { host: SITE, cookie, origin: `http://${SITE}`, 'content-type': encoded.headers.get('content-type') ?? '' },
      payload: Buffer.from(await encoded.arrayBuffer()),
    });
    assert.equal(upload.statusCode, 429);
    assert.equal(upload.headers['retry-after'], '5');
    for (const h of held) h.abort();
    await inFlight(0);
  });
});
