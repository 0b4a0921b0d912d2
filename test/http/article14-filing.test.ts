import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { updateReport } from '../../src/modules/reports/update-report.js';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

/** `POST /vulnerabilities/{id}/article14/{stage}` reads `{filedAt?, reference?}` through its published schema. */
let t: TestApp;
let acme: Tenant;
let key = '';
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  key = (await makeKey(t.database.db, acme, { scopes: ['triage:write'] })).key;
});
after(() => t.close());

async function exploitedReport(): Promise<string> {
  const { report } = await fileReport(t.database.db, operatorContext(), acme.company, { description: 'exploited in the wild' }, 'api');
  await updateReport(t.database.db, operatorContext(), acme.company.id, report.submissionId, {
    activelyExploited: true,
    awareAt: new Date(Date.now() - 3_600_000).toISOString(),
  });
  return report.submissionId;
}

const file = (id: string, stage: string, body?: unknown) =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/vulnerabilities/${id}/article14/${stage}`,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

describe('recording an Article 14 filing over REST', () => {
  it('records filedAt and reference as given, and "now" when the body is left out', async () => {
    const id = await exploitedReport();
    const res = await file(id, 'early_warning', { filedAt: '2026-01-02T10:00:00+01:00', reference: 'SRP-2026-0007' });
    assert.equal(res.statusCode, 201, res.body);
    const early = res.json().stages.find((s: { stage: string }) => s.stage === 'early_warning');
    assert.deepEqual({ filedAt: early.filing.filedAt, reference: early.filing.reference }, { filedAt: '2026-01-02T09:00:00.000Z', reference: 'SRP-2026-0007' });
    const before = Date.now();
    const bare = await file(id, 'notification');
    assert.equal(bare.statusCode, 201, bare.body);
    const notification = bare.json().stages.find((s: { stage: string }) => s.stage === 'notification');
    assert.ok(Math.abs(Date.parse(notification.filing.filedAt) - before) < 60_000, notification.filing.filedAt);
    assert.equal(notification.filing.reference, null);
  });

  it('refuses fields outside the schema, naming each', async () => {
    const id = await exploitedReport();
    for (const [body, path, message] of [
      [{ filedAt: '2026-01-02 10:00' }, 'filedAt', /ISO 8601 date-time with a time zone/],
      [{ reference: 'x'.repeat(201) }, 'reference', /200/],
      [{ reference: 7 }, 'reference', /string/],
      [{ ref: 'SRP-1' }, '', /Unrecognized key: "ref"/],
    ] as const) {
      const res = await file(id, 'early_warning', body);
      assert.equal(res.statusCode, 400, res.body);
      const p = res.json() as { errors: { path: string; message: string }[] };
      assert.equal(p.errors[0]?.path, path, res.body);
      assert.match(p.errors[0]?.message ?? '', message);
    }
  });

  it('publishes the body schema in /openapi.json', async () => {
    const doc = (await t.app.inject({ url: '/openapi.json', headers: { host: SITE } })).json();
    const body = doc.paths['/api/v1/vulnerabilities/{id}/article14/{stage}'].post.requestBody;
    assert.equal(body.required, false);
    const schema = doc.components.schemas[body.content['application/json'].schema.$ref.split('/').pop()];
    assert.deepEqual(Object.keys(schema.properties), ['filedAt', 'reference']);
    assert.equal(schema.properties.reference.maxLength, 200);
    assert.equal(schema.additionalProperties, false);
  });
});
