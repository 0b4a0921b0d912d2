import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getTableColumns, getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import * as schema from '../../../src/db/schema/index.js';
import { auditLog, sessions, webhooks } from '../../../src/db/schema/index.js';
import { API_BASE } from '../../../src/http/api-routes.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { sha256Hex } from '../../../src/kernel/ids.js';
import { recordFiling } from '../../../src/modules/article14/article14.js';
import { EXPORT_PAGE_SIZE, exportCompanyData } from '../../../src/modules/export/export-company.js';
import { CompanyExport, EXPORT_EXCLUDED, EXPORT_SECTIONS } from '../../../src/modules/export/export.sections.js';
import { pushSarif } from '../../../src/modules/findings/push-sarif.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { registerWebhook, rotateWebhookSecret } from '../../../src/modules/webhooks/webhook-endpoints.js';
import { openWebhookSecret } from '../../../src/modules/webhooks/webhook-secrets.js';
import { bearer, makeKey, makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { cycloneDx, sarif } from '../../helpers/evidence.js';

let t: TestApp;
let acme: Tenant;
const RIVAL = 'rival-marker-5e1d';
const WEBHOOK_SECRET = 'a-webhook-secret-of-acme-9b2c41';
const secrets: string[] = [WEBHOOK_SECRET];
let reportId: string;

before(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const ctx = operatorContext();
  acme = await makeTenant(db);
  const rival = await makeTenant(db);
  await upsertProduct(db, ctx, rival.company.id, { name: RIVAL, identifier: RIVAL });
  await fileReport(db, ctx, rival.company, { description: RIVAL }, 'api');

  await upsertProduct(db, ctx, acme.company.id, { name: 'Thermostat', identifier: 'thermo' });
  const filed = await fileReport(db, ctx, acme.company, { description: 'Overflow in the CoAP parser', productName: 'Thermostat' }, 'api');
  reportId = filed.report.submissionId;
  secrets.push(filed.statusToken, sha256Hex(filed.statusToken));
  await updateReport(db, ctx, acme.company.id, reportId, { status: 'triaging', activelyExploited: true, awareAt: new Date().toISOString() });
  await recordFiling(db, ctx, acme.company.id, reportId, 'early_warning', { reference: 'SRP-1' });
  const hook = await registerWebhook(db, ctx, acme.company.id, { url: 'https://hooks.example.com/a', secret: WEBHOOK_SECRET }, { allowPrivate: false });
  secrets.push((await rotateWebhookSecret(db, ctx, { companyId: acme.company.id, id: hook.id })).secret);
  await pushSbom(
    db,
    ctx,
    acme.company.id,
    'thermo',
    cycloneDx(
      [
        { name: 'left-pad', version: '1.3.0', deps: ['tiny'] },
        { name: 'tiny', version: '1.0.0' },
      ],
      ['left-pad'],
    ),
  );
  await pushSarif(db, ctx, acme.company.id, 'thermo', sarif('semgrep', [{ rule: 'xss', file: 'src/a.js', line: 3 }]));
  const key = await makeKey(db, acme);
  secrets.push(key.key, sha256Hex(key.key));
  // A session exists, so its token digest could leak if the exclusion were wrong.
  await signInCookie(t, acme.admin.email);
});
after(() => t.close());

describe('GET /export', () => {
  it('exports every company-scoped table, or says why not', () => {
    const exported = new Set(EXPORT_SECTIONS.map((s) => getTableName(s.table)));
    const scoped = (Object.values(schema) as unknown[])
      .filter((v): v is PgTable => is(v, PgTable))
      .filter((tb) => Object.values(getTableColumns(tb)).some((c) => c.name === 'company_id'))
      .map((tb) => getTableName(tb));
    assert.ok(scoped.includes('audit_log') && scoped.includes('sessions'), 'the table walk finds tenant tables');
    for (const name of scoped) {
      assert.ok(
        exported.has(name) || (EXPORT_EXCLUDED[name] ?? '').length > 20,
        `company-scoped table "${name}" is neither exported nor excluded with a reason (src/modules/export/export.sections.ts)`,
      );
    }
    assert.equal(getTableName(sessions), 'sessions');
  });

  it("carries the company's records, history and audit log, and nothing of another company", async () => {
    const { key } = await makeKey(t.database.db, acme, { scopes: ['gdpr:export'] });
    const res = await t.app.inject({ url: `${API_BASE}/export`, headers: bearer(key) });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = CompanyExport.parse(res.json()) as unknown as Record<string, Record<string, unknown>[]> & { company: { slug: string } };
    assert.equal(body.company.slug, acme.company.slug);
    assert.deepEqual(
      body.products?.map((p) => p.identifier),
      ['thermo'],
    );
    const report = body.reports?.find((r) => r.id === reportId);
    assert.equal(report?.status, 'triaging');
    assert.equal(report?.activelyExploited, true);
    assert.equal(body.reportHistory?.[0]?.toStatus, 'triaging');
    assert.equal(body.article14Filings?.[0]?.reference, 'SRP-1');
    assert.equal(body.webhooks?.[0]?.url, 'https://hooks.example.com/a');
    assert.equal(body.admins?.[0]?.email, acme.admin.email);
    assert.equal(body.apiKeys?.length, 2);
    assert.equal(body.sboms?.length, 1);
    assert.equal(body.sbomComponents?.length, 2);
    assert.equal(body.sbomDependencies?.length, 2);
    assert.equal(body.sbomDocuments?.length, 1);
    assert.equal(body.sarifScans?.length, 1);
    assert.equal(body.findings?.[0]?.ruleId, 'xss');
    const actions = body.auditLog?.map((a) => a.action) ?? [];
    for (const a of ['products.create', 'reports.file', 'article14.file', 'webhooks.register', 'export.company_data']) assert.ok(actions.includes(a), a);
    assert.ok(!res.body.includes(RIVAL), "another company's data leaked into the export");
  });

  it('leaves out password hashes, key values and digests, webhook secrets and session tokens', async () => {
    const { key } = await makeKey(t.database.db, acme, { scopes: ['gdpr:export'] });
    const res = await t.app.inject({ url: `${API_BASE}/export`, headers: bearer(key) });
    const [session] = await t.database.db.select().from(sessions);
    const [hook] = await t.database.db.select().from(webhooks);
    assert.ok(session && hook?.previousSecret && openWebhookSecret(hook.id, hook.previousSecret) === WEBHOOK_SECRET);
    for (const s of [...secrets, key, sha256Hex(key), session.tokenDigest, session.csrfToken, hook.secret, hook.previousSecret])
      assert.ok(!res.body.includes(s), `the export contains a secret (${s.slice(0, 6)}...)`);
    assert.ok(!/passwordHash|keyDigest|statusTokenDigest|"secret"|previousSecret"/.test(res.body));
    assert.ok(!res.body.includes('$argon2') && !res.body.includes('scrypt'), 'a password hash leaked');
  });

  it('is read a page at a time while the reader takes it: memory holds one page, not the company', async () => {
    const db = t.database.db;
    const rows = 4 * EXPORT_PAGE_SIZE + 100;
    const at = new Date();
    await db
      .insert(auditLog)
      .values(Array.from({ length: rows }, (_, i) => ({ companyId: acme.company.id, at, actorType: 'system' as const, action: 'bulk.row', details: { i } })));
    const stream = await exportCompanyData(db, operatorContext(), acme.company.id);
    const it = stream[Symbol.asyncIterator]();
    const chunks: string[] = [String((await it.next()).value)];
    // Written after the export began: it can only appear if the last audit page is queried later.
    await db.insert(auditLog).values({ companyId: acme.company.id, at: new Date(), actorType: 'system', action: 'written.during.export' });
    for (let r = await it.next(); !r.done; r = await it.next()) chunks.push(String(r.value));
    const text = chunks.join('');
    const doc = JSON.parse(text) as { auditLog: { action: string }[] };
    assert.ok(
      doc.auditLog.some((a) => a.action === 'written.during.export'),
      'the audit log was read ahead of the reader',
    );
    assert.ok(doc.auditLog.filter((a) => a.action === 'bulk.row').length === rows);
    const largest = Math.max(...chunks.map((c) => c.length));
    assert.ok(chunks.length >= 4, `${chunks.length} chunks`);
    assert.ok(largest * 3 < text.length, `largest chunk ${largest} of ${text.length} bytes: not paged`);
  });
});
