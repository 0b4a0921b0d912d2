import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import type { Operation } from '../../src/modules/operations/operation.js';
import { toolAnnotations } from '../../src/mcp/tool-annotations.js';
import { Readable } from 'node:stream';
import { UNTRUSTED_META, successResult, untrustedPointers } from '../../src/mcp/tool-result.js';
import { readBody } from '../../src/modules/operations/operation.js';
import { splitArguments, toolInputSchema, toolOutputSchema, wrapStructured } from '../../src/mcp/tool-schemas.js';

const handler = async () => ({ status: 200, body: null });
const Doc = z.record(z.string(), z.unknown()).meta({ id: 'TestDocument' });
const Query = z.object({ product: z.string().meta({ description: 'Product identifier.' }), limit: z.coerce.number().int().optional() }).strict();
const Item = z.object({ id: z.string() }).meta({ id: 'TestItem' });

const push: Operation = {
  name: 'docs.push',
  summary: 'Push a document',
  scope: 'sbom:write',
  method: 'POST',
  path: '/docs/:kind',
  mcpTool: 'push_doc',
  mcpBodyName: 'document',
  query: Query,
  input: Doc,
  output: z.array(Item),
  example: {},
  handler,
};
const upsert: Operation = {
  name: 'things.upsert',
  summary: 'Upsert',
  scope: 'products:write',
  method: 'POST',
  path: '/things',
  mcpTool: 'upsert_thing',
  input: z.object({ name: z.string() }).strict().meta({ id: 'ThingInput' }),
  example: {},
  handler,
};

describe('tool input schema', () => {
  it('joins path parameters, query properties and a non-object body under mcpBodyName', () => {
    const s = toolInputSchema(push) as { type: string; properties: Record<string, { type?: string; description?: string }>; required: string[] };
    assert.equal(s.type, 'object');
    assert.deepEqual(Object.keys(s.properties), ['kind', 'product', 'limit', 'document']);
    assert.deepEqual(s.required.sort(), ['document', 'kind', 'product']);
    assert.equal(s.properties.product?.description, 'Product identifier.');
    assert.equal(s.properties.limit?.type, 'integer');
    assert.equal(s.properties.document?.type, 'object');
    assert.ok(!('$schema' in s), 'no $schema: 2025-era clients compile with a draft-07 validator');
  });

  it('spreads an object body (a named schema is resolved, not left as a root $ref)', () => {
    const s = toolInputSchema(upsert) as { properties: Record<string, unknown>; required: string[]; $ref?: string };
    assert.deepEqual(Object.keys(s.properties), ['name']);
    assert.deepEqual(s.required, ['name']);
    assert.equal(s.$ref, undefined);
  });
});

describe('tool output', () => {
  it('wraps a list schema and a list result as { result }, and keeps objects as they are', () => {
    const s = toolOutputSchema(push) as { type: string; required: string[]; properties: { result: { type: string } }; $defs: Record<string, unknown> };
    assert.equal(s.type, 'object');
    assert.deepEqual(s.required, ['result']);
    assert.equal(s.properties.result.type, 'array');
    assert.ok(s.$defs.TestItem);
    assert.deepEqual(wrapStructured([{ id: 'a' }]), { result: [{ id: 'a' }] });
    assert.deepEqual(wrapStructured({ id: 'a', at: new Date('2026-01-01T00:00:00Z') }), { id: 'a', at: '2026-01-01T00:00:00.000Z' });
    assert.equal(wrapStructured(undefined), undefined);
  });
});

describe('result bodies', () => {
  it('reads a streamed or byte body whole as JSON, and leaves values as they are', async () => {
    assert.deepEqual(await readBody(Readable.from([Buffer.from('{"a":'), Buffer.from('[1,2]}')])), { a: [1, 2] });
    assert.deepEqual(await readBody(Buffer.from('[1]')), [1]);
    assert.equal(await readBody(Buffer.from('not json')), 'not json');
    assert.deepEqual(await readBody({ a: 1 }), { a: 1 });
  });
});

describe('tool arguments', () => {
  it('splits arguments back into params, query strings and the body', () => {
    const doc = { bomFormat: 'CycloneDX' };
    assert.deepEqual(splitArguments(push, { kind: 'sbom', product: 'p', limit: 5, document: doc }), {
      params: { kind: 'sbom' },
      query: { product: 'p', limit: '5' },
      body: doc,
    });
    assert.deepEqual(
      splitArguments(upsert, { name: 'x', extra: 1 }),
      { params: {}, query: {}, body: { name: 'x', extra: 1 } },
      'unknown fields reach the strict body schema, which names them',
    );
  });

  it('refuses a missing path parameter and an unknown argument, naming them', () => {
    assert.throws(
      () => splitArguments(push, { product: 'p', document: {} }),
      (e: Error & { extra?: { issues?: { path: string }[] } }) => e.extra?.issues?.[0]?.path === 'kind',
    );
    assert.throws(() => splitArguments(push, { kind: 'k', document: {}, stray: 1 }), /unknown argument stray/);
  });
});

describe('annotations', () => {
  it('derive from the method and the upsert name, with per-operation overrides', () => {
    assert.deepEqual(toolAnnotations({ ...push, method: 'GET' }), {
      title: 'Push a document',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.equal(toolAnnotations({ ...push, method: 'DELETE' }).destructiveHint, true);
    assert.equal(toolAnnotations(push).destructiveHint, false);
    assert.equal(toolAnnotations(push).idempotentHint, false);
    assert.equal(toolAnnotations(upsert).idempotentHint, true);
    assert.equal(toolAnnotations({ ...push, mcpAnnotations: { openWorldHint: true } }).openWorldHint, true);
  });
});

describe('untrusted marking', () => {
  it('finds reporter-written fields of report objects at any depth', () => {
    const report = { submissionId: 's', description: 'd', impact: 'i', stepsToReproduce: null, status: 'new' };
    assert.deepEqual(untrustedPointers({ reports: [report], company: { name: 'Acme' } }), ['/reports/0/description', '/reports/0/impact']);
  });

  it('leaves results without report text unmarked', () => {
    const r = successResult([{ id: 'p', name: 'Thermostat' }], false);
    assert.equal(r.content.length, 1);
    assert.equal(r._meta, undefined);
  });

  it('marks a declared result even without report objects, pointing at the whole result', () => {
    const r = successResult({ stages: [{ value: '<script>' }] }, true);
    assert.deepEqual((r._meta?.[UNTRUSTED_META] as { pointers: string[] }).pointers, ['']);
    assert.ok(!r.content[1]?.text.includes('<script>'));
    assert.deepEqual(JSON.parse((r.content[1]?.text ?? '').split('\n')[1] ?? ''), { stages: [{ value: '<script>' }] });
  });
});
