import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MCP_STREAMS_PER_COMPANY, MCP_STREAMS_PER_KEY } from '../../src/mcp/mcp-routes.js';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { type ListeningApp, startListeningApp } from '../helpers/mcp.js';

// Issue 24: MCP subscription streams were unbounded per key and never closed.

let t: ListeningApp;
let acme: Tenant;
before(async () => {
  t = await startListeningApp({ MCP_STREAM_LIFETIME_SECONDS: '2' });
  acme = await makeTenant(t.database.db);
});
after(() => t.close());

const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };

function listen(key: string, signal: AbortSignal, app: ListeningApp = t): Promise<Response> {
  return fetch(app.mcpUrl, {
    method: 'POST',
    signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
      authorization: `Bearer ${key}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: ENVELOPE } }),
  });
}

/** Reads a stream until it ends; resolves with what it carried. */
async function drain(res: Response): Promise<string> {
  let text = '';
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
  return text;
}

describe('MCP subscription streams', () => {
  it(`keeps at most ${MCP_STREAMS_PER_KEY} open per key, frees a slot when one closes, and closes each after its lifetime`, async () => {
    const k = await makeKey(t.database.db, acme);
    const other = await makeKey(t.database.db, acme);
    const controllers = Array.from({ length: MCP_STREAMS_PER_KEY }, () => new AbortController());
    const open = await Promise.all(controllers.map((c) => listen(k.key, c.signal)));
    assert.deepEqual(
      open.map((r) => [r.status, r.headers.get('content-type')]),
      controllers.map(() => [200, 'text/event-stream']),
    );
    const refused = await listen(k.key, new AbortController().signal);
    assert.equal(refused.status, 429);
    assert.match(((await refused.json()) as { error: { message: string } }).error.message, /at most 4 subscription streams per API key/);
    // Another key is not held by this one's streams.
    const otherStream = new AbortController();
    assert.equal((await listen(other.key, otherStream.signal)).status, 200);
    otherStream.abort();
    // One closed by the client: its slot is free again.
    controllers[0]?.abort();
    await sleep(200);
    const again = await listen(k.key, new AbortController().signal);
    assert.equal(again.status, 200);
    // Every stream ends by itself once its lifetime (2 s here) is over.
    const carried = await Promise.all([again, ...open.slice(1)].map(drain));
    for (const c of carried) assert.match(c, /notifications\/subscriptions\/acknowledged/);
    assert.equal((await listen(k.key, new AbortController().signal)).status, 200, 'all slots free after the lifetimes ended');
  });
});

describe('MCP subscription streams of one company (issue 32, finding 7)', () => {
  let long: ListeningApp;
  before(async () => {
    // The default lifetime (30 minutes): no stream ends by itself while the test counts.
    long = await startListeningApp();
  });
  after(() => long.close());

  it(`keeps at most ${MCP_STREAMS_PER_COMPANY} open per company, over all its keys, and holds no other company`, async () => {
    const many = await makeTenant(long.database.db);
    const keys = await Promise.all(Array.from({ length: 6 }, () => makeKey(long.database.db, many)));
    const controllers: AbortController[] = [];
    const answers: Response[] = [];
    // One key after another, each up to its own limit: 24 asked for, the company's limit is reached first.
    for (const k of keys)
      for (let i = 0; i < MCP_STREAMS_PER_KEY; i++) {
        const c = new AbortController();
        controllers.push(c);
        answers.push(await listen(k.key, c.signal, long));
      }
    assert.equal(answers.filter((r) => r.status === 200).length, MCP_STREAMS_PER_COMPANY);
    const refused = answers.filter((r) => r.status === 429);
    assert.equal(refused.length, keys.length * MCP_STREAMS_PER_KEY - MCP_STREAMS_PER_COMPANY);
    for (const r of refused)
      assert.match(((await r.json()) as { error: { message: string } }).error.message, /at most 16 subscription streams per company \(all its keys together\)/);
    const other = await makeTenant(long.database.db);
    const otherStream = new AbortController();
    controllers.push(otherStream);
    assert.equal((await listen((await makeKey(long.database.db, other)).key, otherStream.signal, long)).status, 200, "another company's streams are not held");
    // One closed: the company may open one again.
    controllers[0]?.abort();
    await answers[0]?.body?.cancel().catch(() => undefined);
    let again: Response | undefined;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      if (i > 0) await sleep(100);
      const c = new AbortController();
      controllers.push(c);
      again = await listen(keys.at(-1)?.key ?? '', c.signal, long);
    }
    assert.equal(again?.status, 200);
    for (const c of controllers) c.abort();
  });
});
