import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { makeKey, makeTenant } from '../helpers/access.js';
import { type ListeningApp, startListeningApp } from '../helpers/mcp.js';

// The MCP SDK and server are loaded by the first MCP request (ADR 0027): on a server that has not
// answered one yet, requests that arrive together all wait for the one load and are all answered.
let t: ListeningApp;
let key: string;
before(async () => {
  t = await startListeningApp();
  key = (await makeKey(t.database.db, await makeTenant(t.database.db))).key;
});
after(() => t.close());

const rpc = (id: number, method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method, params });
/** The JSON-RPC answer, sent as one server-sent event. */
async function answer(res: Response): Promise<unknown> {
  const data = /^data: (.*)$/m.exec(await res.text());
  assert.ok(data, 'the answer carries one event with data');
  return JSON.parse(data[1] as string);
}

it('answers the first MCP requests of a fresh server, sent together, each in full', async () => {
  const post = (body: unknown) =>
    fetch(t.mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
  const init = rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  const answers = await Promise.all([post(init), post(init), post(init)]);
  for (const res of answers) {
    assert.equal(res.status, 200);
    const body = (await answer(res)) as { id: number; result: { protocolVersion: string; serverInfo: { name: string }; capabilities: { tools?: object } } };
    assert.equal(body.id, 1);
    assert.equal(body.result.protocolVersion, '2025-11-25');
    assert.equal(body.result.serverInfo.name, 'cradle');
    assert.ok(body.result.capabilities.tools, 'the server offers tools');
  }
  const list = await post(rpc(2, 'tools/list'));
  assert.equal(list.status, 200);
  const { result } = (await answer(list)) as { result: { tools: { name: string }[] } };
  assert.deepEqual(
    result.tools.map((x) => x.name).sort(),
    API_OPERATIONS.filter((o) => o.mcpTool)
      .map((o) => o.mcpTool)
      .sort(),
  );
});
