import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { API_BASE } from '../../src/http/api-routes.js';
import { REPORT_LIMITS } from '../../src/modules/reports/reports.schemas.js';
import { VULNERABILITY_TYPES } from '../../src/modules/reports/vulnerability-types.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

/**
 * Every (method, full path) Fastify has registered, read from its route tree print-out (Fastify
 * has no route list API): each line is an indented path segment followed by its methods.
 */
function registeredRoutes(tree: string): { method: string; path: string }[] {
  const stack: string[] = [];
  const out: { method: string; path: string }[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([\s│├└─]*?)(\S[^ ]*) \(([A-Z, ]+)\)/.exec(line);
    if (!m) continue;
    const depth = Math.floor((m[1] as string).length / 4) - 1;
    stack.length = depth;
    stack[depth] = m[2] as string;
    const path = stack.join('').replace(/^\/\//, '/');
    for (const method of (m[3] as string).split(', ')) if (method !== 'HEAD') out.push({ method, path });
  }
  return out;
}

let t: TestApp;
let doc: { openapi: string; info: { version: string }; paths: Record<string, Record<string, { operationId: string }>> };
before(async () => {
  t = await createTestApp();
  const res = await t.app.inject({ url: '/openapi.json', headers: { host: SITE } });
  assert.equal(res.statusCode, 200);
  doc = res.json();
});
after(() => t.close());

describe('/openapi.json', () => {
  it('is OpenAPI 3.1, version 1.0.0, accepted by an independent validator', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
    const result = await validate(structuredClone(doc) as never);
    assert.ok(result.valid, JSON.stringify(result));
  });

  it('documents every operation and the bulk endpoint, and nothing that is not served', async () => {
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    const served = [...API_OPERATIONS.map((o) => `${o.method} ${API_BASE}${o.path.replace(/:([A-Za-z]+)/g, '{$1}')}`), 'POST /api/portal/batch'];
    assert.deepEqual(documented.sort(), served.sort());
    for (const route of served) {
      const [method, path] = route.split(' ') as [string, string];
      const res = await t.app.inject({
        method: method as 'GET',
        url: path.replace(/\{[A-Za-z]+\}/g, '00000000-0000-4000-8000-000000000000'),
        headers: { host: SITE },
      });
      assert.notEqual(res.statusCode, 404, `${route} is documented but not routed`);
    }
  });

  it('documents every route Fastify serves under /api/v1, and each documented operation is a served route', () => {
    const served = registeredRoutes(t.app.printRoutes({ commonPrefix: false }))
      .filter((r) => r.path.startsWith(`${API_BASE}/`) || r.path === API_BASE)
      .map((r) => `${r.method} ${r.path.replace(/:([A-Za-z]+)/g, '{$1}')}`);
    assert.ok(served.length >= API_OPERATIONS.length, served.join('\n'));
    const documented = Object.entries(doc.paths)
      .filter(([p]) => p.startsWith(`${API_BASE}/`))
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    assert.deepEqual([...new Set(served)].sort(), documented.sort());
    for (const route of documented) {
      const [method, path] = route.split(' ') as [string, string];
      assert.ok(
        t.app.hasRoute({ method: method as 'GET', url: path.replace(/\{([A-Za-z]+)\}/g, ':$1'), constraints: { zone: 'site' } }),
        `${route} is documented but not routed`,
      );
    }
  });

  it('documents every query parameter an operation reads, and no other', () => {
    for (const op of API_OPERATIONS) {
      const o = doc.paths[`${API_BASE}${op.path.replace(/:([A-Za-z]+)/g, '{$1}')}`]?.[op.method.toLowerCase()] as unknown as {
        parameters?: { name: string; in: string }[];
      };
      const documented = (o.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      assert.deepEqual(documented, Object.keys(op.query?.shape ?? {}), op.name);
    }
  });

  it('describes the API, its licence, contact and every tag, for any instance (relative server)', () => {
    const d = doc as unknown as {
      info: { license: { identifier: string }; contact: { url: string } };
      servers: { url: string }[];
      tags: { name: string; description?: string }[];
    };
    assert.equal(d.info.license.identifier, 'Apache-2.0');
    assert.equal(d.info.contact.url, 'http://localhost:3000/');
    assert.deepEqual(
      d.servers.map((s) => s.url),
      ['/'],
    );
    assert.deepEqual(
      d.tags.filter((tag) => !tag.description).map((tag) => tag.name),
      [],
    );
  });

  it('publishes the vulnerabilityType enumeration', () => {
    const text = JSON.stringify(doc);
    for (const v of VULNERABILITY_TYPES) assert.ok(text.includes(`"${v}"`), v);
  });

  it('states the report and bulk field limits machine-readably: maxLength and x-max-bytes (UTF-8 bytes), and what pgpKey must be', () => {
    const schemas = (doc as unknown as { components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } }).components.schemas;
    for (const id of ['ReportFields', 'BulkSubmissionItem']) {
      for (const [field, limit] of Object.entries(REPORT_LIMITS)) {
        const p = schemas[id]?.properties[field];
        assert.equal(p?.maxLength, limit, `${id}.${field}`);
        assert.equal(p?.['x-max-bytes'], limit, `${id}.${field}`);
      }
    }
    const pgp = schemas.ReportFields?.properties.pgpKey ?? {};
    assert.match(String(pgp.description), /ASCII-armoured public key block .*-----BEGIN PGP PUBLIC KEY BLOCK-----.*-----END PGP PUBLIC KEY BLOCK-----/);
    const pattern = new RegExp(String(pgp.pattern));
    assert.ok(pattern.test('-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBGAAAAA=\n-----END PGP PUBLIC KEY BLOCK-----'));
    assert.ok(!pattern.test('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI'));
    const body = (path: string, method: string) =>
      (doc.paths[path]?.[method] as unknown as { requestBody: Record<string, unknown> }).requestBody['x-max-bytes'];
    assert.equal(body('/api/v1/vulnerabilities', 'post'), 1024 * 1024);
    assert.equal(body('/api/v1/sboms', 'post'), t.config.evidenceMaxBytes);
    assert.equal(body('/api/portal/batch', 'post'), 4 * 1024 * 1024);
  });

  it('the byte limit is the one enforced: a description within maxLength characters but over x-max-bytes is refused', async () => {
    const item = { slug: 'acme', description: 'é'.repeat(REPORT_LIMITS.description / 2 + 1) };
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/portal/batch',
      headers: { host: SITE, 'content-type': 'application/json' },
      payload: { submissions: [item] },
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().errors[0].path, 'submissions.0.description');
    assert.equal(res.json().errors[0].message, 'description must be at most 64 KiB');
  });

  it('matches the committed snapshot (run `npm run openapi:snapshot` after an API change)', () => {
    const snapshot = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    assert.deepEqual(doc, snapshot);
  });
});
