import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { API_BASE } from '../../src/http/api-routes.js';
import type { Operation } from '../../src/modules/operations/operation.js';
import { operatorContext } from '../../src/kernel/context.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { registerWebhook } from '../../src/modules/webhooks/webhook-endpoints.js';
import { DEFAULT_BODY_NAME, wrapStructured } from '../../src/mcp/tool-schemas.js';
import { makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { type AnyClient, callTool, connectLegacy, connectModern, type ListeningApp, startListeningApp } from '../helpers/mcp.js';
import { exampleBody, OPERATION_FIXTURES } from '../helpers/operation-fixtures.js';

/**
 * Generated from the operation list: every operation with an MCP tool is called once over REST and
 * once through its tool, each on its own company seeded alike (so writes do not see each other,
 * and a read that audits itself, such as the company export, does not see the other's row). The
 * answers must be equal once values that differ by nature are replaced by placeholders:
 * ids (UUIDs and serial numbers), times, generated secrets and key hints, each company's own slug,
 * the transport named in a report's `source`, and the key-use audit rows each transport leaves.
 * Lists are compared in any order: records of two companies sort differently where the order
 * falls back to random ids. A new operation with `mcpTool` is
 * covered without touching this file; one whose records cannot be built (path parameters without
 * a fixture in test/helpers/operation-fixtures.ts, or a REST call that does not succeed) fails.
 */
const MCP_OPS = API_OPERATIONS.filter((o) => o.mcpTool);
let t: ListeningApp;

before(async () => {
  t = await startListeningApp();
});
after(() => t.close());

async function seed(tenant: Tenant): Promise<void> {
  const db = t.database.db;
  await upsertProduct(db, operatorContext(), tenant.company.id, { name: 'Thermostat T2', identifier: 'thermo-t2', producer: 'Acme' });
  await fileReport(
    db,
    operatorContext(),
    tenant.company,
    { description: 'Seeded report: stack overflow in the CoAP parser', productName: 'Thermostat T2' },
    'api',
  );
  await registerWebhook(db, operatorContext(), tenant.company.id, { url: 'https://hooks.example.com/cradle' }, { allowPrivate: false });
}

async function paramsFor(op: Operation, tenant: Tenant): Promise<Record<string, string>> {
  const fixture = OPERATION_FIXTURES[op.name];
  if (fixture) return fixture(t.database.db, tenant.company);
  if (op.path.includes(':')) assert.fail(`${op.name} has path parameters but no fixture: add one in test/helpers/operation-fixtures.ts`);
  return {};
}

async function callRest(op: Operation, key: string, params: Record<string, string>): Promise<unknown> {
  let path = op.path;
  for (const [k, v] of Object.entries(params)) path = path.replace(`:${k}`, encodeURIComponent(v));
  const qs = new URLSearchParams(op.example.query ?? {}).toString();
  const body = exampleBody(op, params);
  const res = await fetch(`${t.url}${API_BASE}${path}${qs ? `?${qs}` : ''}`, {
    method: op.method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  assert.ok(res.ok, `${op.name}: REST answered ${res.status} to the example, so the comparison cannot run: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The tool arguments of the operation's example: path params, query, then the body (spread, or under its name). */
function argumentsOf(op: Operation, params: Record<string, string>): Record<string, unknown> {
  const body = exampleBody(op, params);
  const bodyArgs =
    body === undefined ? {} : op.input instanceof z.ZodObject ? (body as Record<string, unknown>) : { [op.mcpBodyName ?? DEFAULT_BODY_NAME]: body };
  const pathParams = Object.fromEntries(Object.entries(params).filter(([k]) => !k.startsWith('body.')));
  return { ...pathParams, ...(op.example.query ?? {}), ...bodyArgs };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const KEY_USE_ACTIONS = new Set(['api.request', 'mcp.request', 'mcp.tool_call']);
const isKeyUseRow = (v: unknown) => v !== null && typeof v === 'object' && KEY_USE_ACTIONS.has((v as { action?: string }).action ?? '');

/**
 * Fields whose values are generated per record: identifiers (UUIDs, serial numbers), a key's hint,
 * and a researcher's pseudonym (keyed by each company's own pseudonym key, docs/retention.md).
 */
const GENERATED_KEY = /^(id|.*Id|keyHint|pseudonym)$/;

const UUID_INSIDE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

function normalise(v: unknown, tenant: Tenant, key?: string): unknown {
  if (key !== undefined && GENERATED_KEY.test(key) && (typeof v === 'string' || typeof v === 'number')) return '<generated>';
  if (typeof v === 'string') {
    if (UUID.test(v)) return '<uuid>';
    if (TIME.test(v)) return '<time>';
    if (v.startsWith('whsec_') || /^[0-9a-f]{64}$/.test(v)) return '<secret>';
    if (key === 'source' && (v === 'api' || v === 'mcp')) return '<transport>';
    // Ids inside text (`api_key:<id>`, `urn:uuid:<id>`) differ between the two tenants too.
    return v.replaceAll(tenant.company.slug, '<slug>').replaceAll(tenant.admin.email, '<admin>').replace(UUID_INSIDE, '<uuid>');
  }
  if (Array.isArray(v)) {
    const items = v.filter((x) => !isKeyUseRow(x)).map((x) => normalise(x, tenant));
    return items
      .map((x) => [JSON.stringify(x), x] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, x]) => x);
  }
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, normalise(x, tenant, k)]));
  return v;
}

const CLIENTS: [string, (t: ListeningApp, key: string) => Promise<AnyClient>][] = [
  ['v2 client, 2026-07-28', connectModern],
  ['1.x SDK client, 2025-11-25', connectLegacy],
];

for (const [label, connect] of CLIENTS) {
  describe(`REST and MCP (${label}) return equal data`, () => {
    let viaRest: Tenant;
    let viaMcp: Tenant;
    let restKey: string;
    let client: AnyClient;
    before(async () => {
      viaRest = await makeTenant(t.database.db);
      viaMcp = await makeTenant(t.database.db);
      await seed(viaRest);
      await seed(viaMcp);
      restKey = (await makeKey(t.database.db, viaRest)).key;
      client = await connect(t, (await makeKey(t.database.db, viaMcp)).key);
    });
    after(() => client.close());

    it('lists one tool per operation with an MCP name, and no other', async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x) => x.name).sort(), MCP_OPS.map((o) => o.mcpTool).sort());
    });

    for (const op of MCP_OPS) {
      it(`${op.mcpTool} returns what ${op.method} ${API_BASE}${op.path} returns`, async () => {
        const rest = await callRest(op, restKey, await paramsFor(op, viaRest));
        const res = await callTool(client, op.mcpTool as string, argumentsOf(op, await paramsFor(op, viaMcp)));
        assert.notEqual(res.isError, true, `${op.mcpTool}: ${res.content[0]?.text}`);
        assert.deepEqual(normalise(res.structuredContent, viaMcp), normalise(wrapStructured(rest), viaRest));
      });
    }
  });
}
