import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, sboms } from '../../../src/db/schema/index.js';
import { API_BASE } from '../../../src/http/api-routes.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { updateCompany } from '../../../src/modules/companies/update-company.js';
import { REQUIREMENTS } from '../../../src/modules/compliance/catalog.js';
import { complianceOperations } from '../../../src/modules/compliance/compliance.operations.js';
import { recordAttestation } from '../../../src/modules/compliance/attestations.js';
import { pushSarif } from '../../../src/modules/findings/push-sarif.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { NextDeadlineBody, NextTaskBody } from '../../../src/modules/compliance/compliance.schemas.js';
import { bearer, makeKey, makeTenant, type Tenant } from '../../helpers/access.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { fixture, sarif } from '../../helpers/evidence.js';
import { compileSchema } from '../../helpers/json-schema.js';

/**
 * The compliance endpoints from real stored data: products pushed, scanned, reported on and
 * attested through the same verbs the API uses, then read back over HTTP.
 */
let t: TestApp;
let acme: Tenant;
let key: string;
const ctx = operatorContext();
const DAY = 86_400_000;

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  key = (await makeKey(t.database.db, acme)).key;
  await updateCompany(t.database.db, ctx, acme.company.slug, {
    securityEmail: 'psirt@acme.test',
    policyText: 'We answer within 5 days and disclose after 90.',
  });
});
after(() => t.close());

async function get(path: string, k = key) {
  const res = await t.app.inject({ method: 'GET', url: `${API_BASE}${path}`, headers: bearer(k) });
  return { status: res.statusCode, body: res.json() };
}
async function send(method: 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) {
  const res = await t.app.inject({
    method,
    url: `${API_BASE}${path}`,
    headers: { ...bearer(key), ...(payload ? { 'content-type': 'application/json' } : {}) },
    ...(payload ? { payload: JSON.stringify(payload) } : {}),
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined };
}

type AssessmentsBody = { products: { identifier: string; assessments: { requirementId: string; verdict: string; reason: string }[] }[] };
async function verdicts(identifier: string): Promise<Record<string, string>> {
  const { status, body } = await get(`/compliance/assessments?product=${identifier}`);
  assert.equal(status, 200, JSON.stringify(body));
  const p = (body as AssessmentsBody).products[0];
  assert.equal(p?.identifier, identifier);
  return Object.fromEntries(p.assessments.map((a) => [a.requirementId, a.verdict]));
}
async function reason(identifier: string, requirementId: string): Promise<string> {
  const { body } = await get(`/compliance/assessments?product=${identifier}`);
  return (body as AssessmentsBody).products[0]?.assessments.find((a) => a.requirementId === requirementId)?.reason ?? '';
}

const product = (identifier: string, name = identifier) => upsertProduct(t.database.db, ctx, acme.company.id, { name, identifier });
async function backdate(productId: string, days: number) {
  await t.database.db
    .update(sboms)
    .set({ createdAt: new Date(Date.now() - days * DAY) })
    .where(eq(sboms.productId, productId));
}
const cleanScan = () => sarif('Semgrep', [{ rule: 'style', file: 'src/a.c', line: 3, level: 'note' }]);
const criticalScan = () => sarif('Semgrep', [{ rule: 'overflow', file: 'src/coap.c', line: 42, level: 'error' }], { overflow: { securitySeverity: '9.8' } });

describe('a seeded company with products in different situations', () => {
  let old: string;
  before(async () => {
    await product('hub', 'Hub');
    await pushSbom(t.database.db, ctx, acme.company.id, 'hub', fixture('cradle-cyclonedx-npm-1.6.cdx.json'));
    await pushSarif(t.database.db, ctx, acme.company.id, 'hub', cleanScan());
    assert.equal(
      (
        await send('PUT', '/compliance/products/hub', {
          category: 'important_i',
          placedOnMarketAt: '2026-01-15T00:00:00Z',
          supportEndsAt: '2033-01-01T00:00:00Z',
        })
      ).status,
      200,
    );
    await product('cam', 'Cam');
    old = (await product('old', 'Old')).product.id;
    await pushSbom(t.database.db, ctx, acme.company.id, 'old', fixture('cradle-cyclonedx-npm-1.6.cdx.json'));
    await backdate(old, 120);
    await pushSarif(t.database.db, ctx, acme.company.id, 'old', criticalScan());
  });

  it('gives the exact verdicts per product', async () => {
    const automatic = [
      'cra-ai-p1-2a',
      'cra-ai-p2-1',
      'cra-ai-p2-3',
      'cra-art13-8-support',
      'cra-art13-5-components',
      'cra-aii-7-support-end',
      'cra-ai-p2-5',
      'cra-art13-17-contact',
      'cra-art14-reporting',
    ];
    const pick = (v: Record<string, string>) => Object.fromEntries(automatic.map((id) => [id, v[id]]));
    assert.deepEqual(pick(await verdicts('hub')), {
      'cra-ai-p1-2a': 'met',
      'cra-ai-p2-1': 'met',
      'cra-ai-p2-3': 'met',
      'cra-art13-8-support': 'met',
      'cra-art13-5-components': 'met',
      'cra-aii-7-support-end': 'met',
      'cra-ai-p2-5': 'met',
      'cra-art13-17-contact': 'met',
      'cra-art14-reporting': 'met',
    });
    assert.deepEqual(pick(await verdicts('cam')), {
      'cra-ai-p1-2a': 'not_assessed',
      'cra-ai-p2-1': 'gap',
      'cra-ai-p2-3': 'gap',
      'cra-art13-8-support': 'gap',
      'cra-art13-5-components': 'not_assessed',
      'cra-aii-7-support-end': 'gap',
      'cra-ai-p2-5': 'met',
      'cra-art13-17-contact': 'met',
      'cra-art14-reporting': 'met',
    });
    assert.deepEqual(pick(await verdicts('old')), {
      'cra-ai-p1-2a': 'gap',
      'cra-ai-p2-1': 'gap',
      'cra-ai-p2-3': 'met',
      'cra-art13-8-support': 'gap',
      'cra-art13-5-components': 'met',
      'cra-aii-7-support-end': 'gap',
      'cra-ai-p2-5': 'met',
      'cra-art13-17-contact': 'met',
      'cra-art14-reporting': 'met',
    });
    assert.equal(await reason('old', 'cra-ai-p1-2a'), '1 critical and 0 high open finding(s)');
    assert.equal(await reason('old', 'cra-ai-p2-1'), 'the latest SBOM is 120 days old (more than 90)');
  });

  it('lists exactly the gaps, gaps before the not yet assessed, each with its action', async () => {
    const { status, body } = await get('/compliance/gaps');
    assert.equal(status, 200);
    const gaps = body.gaps as { requirementId: string; product: { identifier: string }; verdict: string; action: string }[];
    const firstOpen = gaps.findIndex((g) => g.verdict === 'not_assessed');
    assert.ok(
      gaps.slice(firstOpen).every((g) => g.verdict === 'not_assessed'),
      'gaps come first',
    );
    const real = gaps
      .filter((g) => g.verdict === 'gap' && ['hub', 'cam', 'old'].includes(g.product.identifier))
      .map((g) => `${g.product.identifier} ${g.requirementId}`)
      .sort();
    assert.deepEqual(real, [
      'cam cra-ai-p2-1',
      'cam cra-ai-p2-3',
      'cam cra-aii-7-support-end',
      'cam cra-art13-8-support',
      'old cra-ai-p1-2a',
      'old cra-ai-p2-1',
      'old cra-aii-7-support-end',
      'old cra-art13-8-support',
    ]);
    for (const g of gaps) assert.ok(g.action.length > 10, g.requirementId);
  });

  it('reports status with counts, a score and the conformity route of the category', async () => {
    const { body } = await get('/compliance/status?product=hub');
    const hub = body.products[0];
    assert.equal(hub.category, 'important_i');
    assert.match(hub.conformityRoute, /module A only with harmonised standards/);
    assert.equal(hub.summary.gap, 0);
    assert.equal(hub.summary.met + hub.summary.not_assessed + hub.summary.not_applicable, REQUIREMENTS.length);
    assert.equal(hub.summary.score, Math.round((hub.summary.met / (hub.summary.met + hub.summary.not_assessed)) * 100));
    assert.deepEqual(body.overall, hub.summary);
  });

  it('validates the OSCAL assessment results and the OSCAL catalog against the official schemas, with stable UUIDs', async () => {
    const results = compileSchema('oscal/oscal_assessment-results_schema.json');
    const a = await get('/compliance/assessments/oscal');
    assert.equal(a.status, 200);
    assert.ok(results(a.body), JSON.stringify(results.errors));
    const b = await get('/compliance/assessments/oscal');
    type Doc = { 'assessment-results': { results: { findings?: { uuid: string }[] }[]; 'import-ap': { href: string } } };
    const uuids = (doc: Doc) => doc['assessment-results'].results.flatMap((r) => (r.findings ?? []).map((f) => f.uuid));
    assert.ok(uuids(a.body as Doc).length > 20);
    assert.deepEqual(uuids(b.body as Doc), uuids(a.body as Doc));
    const catalog = compileSchema('oscal/oscal_catalog_schema.json');
    const c = await get('/compliance/mappings/oscal');
    assert.ok(catalog(c.body), JSON.stringify(catalog.errors));
    assert.equal((a.body as Doc)['assessment-results']['import-ap'].href, 'http://localhost:3000/api/v1/compliance/mappings/oscal');
  });

  it('answers every compliance read with a body its declared output schema accepts', async () => {
    for (const op of complianceOperations.filter((o) => o.method === 'GET' && o.output)) {
      const path = op.path.replace(':identifier', 'hub');
      const { status, body } = await get(path);
      assert.equal(status, 200, path);
      const parsed = op.output?.safeParse(body);
      assert.ok(parsed?.success, `${op.name}: ${JSON.stringify(parsed?.error?.issues.slice(0, 3))}`);
    }
  });

  it('maps every requirement to the evidence it uses', async () => {
    const { body } = await get('/compliance/mappings');
    const sbom = body.requirements.find((r: { id: string }) => r.id === 'cra-ai-p2-1');
    assert.deepEqual(sbom.sources, ['sboms (latest per product and its age)']);
    assert.equal(body.requirements.length, REQUIREMENTS.length);
  });
});

describe('verdicts follow the evidence as it arrives', () => {
  it('SBOM: none is a gap, a push meets it, an old one is a gap again', async () => {
    const { product: p } = await product('evo-sbom');
    assert.equal((await verdicts('evo-sbom'))['cra-ai-p2-1'], 'gap');
    assert.equal(await reason('evo-sbom', 'cra-ai-p2-1'), 'no SBOM has been pushed for this product');
    await pushSbom(t.database.db, ctx, acme.company.id, 'evo-sbom', fixture('cradle-npm-sbom.spdx.json'));
    assert.equal((await verdicts('evo-sbom'))['cra-ai-p2-1'], 'met');
    await backdate(p.id, 91);
    assert.equal((await verdicts('evo-sbom'))['cra-ai-p2-1'], 'gap');
  });

  it('findings: a critical one is a gap; the next scan without it closes it', async () => {
    await product('evo-scan');
    await pushSarif(t.database.db, ctx, acme.company.id, 'evo-scan', criticalScan());
    assert.equal((await verdicts('evo-scan'))['cra-ai-p1-2a'], 'gap');
    await pushSarif(t.database.db, ctx, acme.company.id, 'evo-scan', sarif('Semgrep', []));
    const v = await verdicts('evo-scan');
    assert.equal(v['cra-ai-p1-2a'], 'met');
    assert.equal(v['cra-ai-p2-3'], 'met');
  });

  it('reports: an actively exploited one is a gap and starts the Article 14 clock; an overdue stage is the next deadline', async () => {
    await product('evo-report', 'Evo Router');
    await pushSarif(t.database.db, ctx, acme.company.id, 'evo-report', cleanScan());
    const { report } = await fileReport(t.database.db, ctx, acme.company, { description: 'RCE in the web UI', productName: 'evo router' }, 'api');
    const aware = new Date(Date.now() - 2 * DAY).toISOString();
    await updateReport(t.database.db, ctx, acme.company.id, report.submissionId, { status: 'triaging', activelyExploited: true, awareAt: aware });
    const v = await verdicts('evo-report');
    assert.equal(v['cra-ai-p1-2a'], 'gap');
    assert.equal(v['cra-art14-reporting'], 'gap');
    assert.equal(await reason('evo-report', 'cra-ai-p1-2a'), '1 actively exploited report(s) not yet fixed');
    const next = await get('/compliance/next-deadline');
    assert.equal(next.status, 200);
    assert.equal(next.body.deadline.kind, 'article14_stage');
    assert.equal(next.body.deadline.reportId, report.submissionId);
    assert.equal(next.body.deadline.overdue, true);
    assert.equal(next.body.deadline.at, new Date(Date.parse(aware) + DAY).toISOString());
    const task = await get('/compliance/next-task');
    assert.equal(task.body.task.requirementId, 'cra-art14-reporting');
    assert.match(task.body.task.why, /Article 14 stage\(s\) overdue/);
    // A mitigation available handles the exploited report for (2)(a).
    await updateReport(t.database.db, ctx, acme.company.id, report.submissionId, { fixAvailableAt: new Date().toISOString() });
    assert.equal((await verdicts('evo-report'))['cra-ai-p1-2a'], 'met');
  });

  it('product facts: a short support period is a gap until justified', async () => {
    await product('evo-support');
    await send('PUT', '/compliance/products/evo-support', { placedOnMarketAt: '2026-06-01T00:00:00Z', supportEndsAt: '2028-06-01T00:00:00Z' });
    assert.equal((await verdicts('evo-support'))['cra-art13-8-support'], 'gap');
    const r = await send('PUT', '/compliance/products/evo-support', { supportJustification: 'A trade-show demonstrator used for two years at most.' });
    assert.equal(r.body.supportEndsAt, '2028-06-01T00:00:00.000Z');
    assert.equal((await verdicts('evo-support'))['cra-art13-8-support'], 'met');
    const bad = await send('PUT', '/compliance/products/evo-support', { category: 'very_important', supportEndsAt: 'soon' });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      (bad.body.errors as { path: string }[]).map((e) => e.path),
      ['category', 'supportEndsAt'],
    );
  });
});

describe('attestations', () => {
  it('not applicable with a justification overrides; withdrawing restores; both are audited', async () => {
    await product('att');
    assert.equal((await verdicts('att'))['cra-ai-p2-7'], 'not_assessed');
    const r = await send('POST', '/compliance/attestations', {
      requirementId: 'cra-ai-p2-7',
      product: 'att',
      verdict: 'not_applicable',
      justification: 'The device is never updated in the field.',
      evidenceUrl: 'https://docs.acme.test/att',
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.productIdentifier, 'att');
    assert.match(r.body.author, /^api key [0-9a-f-]{36}$/);
    assert.equal((await verdicts('att'))['cra-ai-p2-7'], 'not_applicable');
    assert.match(await reason('att', 'cra-ai-p2-7'), /The device is never updated in the field/);
    const list = await get('/compliance/attestations');
    assert.ok(list.body.some((a: { id: string }) => a.id === r.body.id));
    assert.equal((await send('DELETE', `/compliance/attestations/${r.body.id}`)).status, 204);
    assert.equal((await verdicts('att'))['cra-ai-p2-7'], 'not_assessed');
    assert.ok(!(await get('/compliance/attestations')).body.some((a: { id: string }) => a.id === r.body.id));
    assert.ok(
      (await get('/compliance/attestations?includeWithdrawn=true')).body.some(
        (a: { id: string; withdrawnAt: string | null }) => a.id === r.body.id && a.withdrawnAt,
      ),
    );
    const actions = (
      await t.database.db
        .select({ action: auditLog.action })
        .from(auditLog)
        .where(and(eq(auditLog.companyId, acme.company.id), eq(auditLog.targetId, r.body.id)))
    )
      .map((x) => x.action)
      .sort();
    assert.deepEqual(actions, ['compliance.attest', 'compliance.withdraw_attestation']);
    assert.equal((await send('DELETE', `/compliance/attestations/${r.body.id}`)).status, 404);
  });

  it('a company-wide attestation meets an attestation requirement for every product', async () => {
    await send('POST', '/compliance/attestations', { requirementId: 'cra-art13-13-docs', verdict: 'met', justification: 'Kept in the QMS, folder TD-7.' });
    assert.equal((await verdicts('att'))['cra-art13-13-docs'], 'met');
    assert.equal((await verdicts('hub'))['cra-art13-13-docs'], 'met');
  });

  it('refuses an attestation without a justification, or with an unknown requirement, with 400 naming each field', async () => {
    const r = await send('POST', '/compliance/attestations', { requirementId: 'cra-nope', verdict: 'not_applicable', justification: '   ' });
    assert.equal(r.status, 400);
    const paths = (r.body.errors as { path: string }[]).map((e) => e.path).sort();
    assert.deepEqual(paths, ['justification', 'requirementId']);
    const missing = await send('POST', '/compliance/attestations', { requirementId: 'cra-ai-p2-7', verdict: 'met' });
    assert.equal(missing.status, 400);
    assert.match(JSON.stringify(missing.body), /justification/);
  });
});

describe('tenancy and plans', () => {
  let rival: Tenant;
  before(async () => {
    rival = await makeTenant(t.database.db);
    await upsertProduct(t.database.db, ctx, rival.company.id, { name: 'Theirs', identifier: 'theirs' });
  });

  it("answers 404 for another company's product and attestation", async () => {
    for (const path of [
      '/compliance/status?product=theirs',
      '/compliance/gaps?product=theirs',
      '/compliance/assessments?product=theirs',
      '/compliance/assessments/oscal?product=theirs',
      '/compliance/products/theirs',
    ]) {
      assert.equal((await get(path)).status, 404, path);
    }
    assert.equal(
      (await send('POST', '/compliance/attestations', { requirementId: 'cra-ai-p2-7', product: 'theirs', verdict: 'met', justification: 'x' })).status,
      404,
    );
    const theirs = await recordAttestation(
      t.database.db,
      ctx,
      rival.company.id,
      { requirementId: 'cra-ai-p2-7', verdict: 'met', justification: 'theirs' },
      'them',
    );
    assert.equal((await send('DELETE', `/compliance/attestations/${theirs.id}`)).status, 404);
    assert.ok(!(await get('/compliance/attestations')).body.some((a: { id: string }) => a.id === theirs.id));
  });

  it('serves next-task and next-deadline from the Reporting plan upward, everything else only to Enterprise', async () => {
    const keyOn = async (plan: 'free' | 'reporting') => {
      const low = await makeTenant(t.database.db);
      const k = (await makeKey(t.database.db, low)).key;
      await updateCompany(t.database.db, ctx, low.company.slug, { plan });
      return k;
    };
    const reporting = await keyOn('reporting');
    const task = await get('/compliance/next-task', reporting);
    assert.equal(task.status, 200);
    NextTaskBody.parse(task.body);
    const deadline = await get('/compliance/next-deadline', reporting);
    assert.equal(deadline.status, 200);
    // Every company has at least the date the whole CRA applies ahead of it.
    assert.ok(
      [NextDeadlineBody.parse(deadline.body).deadline, ...deadline.body.upcoming].some((d) => d && /2027-12-11/.test(JSON.stringify(d))),
      JSON.stringify(deadline.body),
    );
    const status = await get('/compliance/status', reporting);
    assert.equal(status.status, 401);
    assert.match(status.body.detail, /Enterprise/);
    const free = await keyOn('free');
    for (const path of ['/compliance/next-task', '/compliance/next-deadline']) {
      const r = await get(path, free);
      assert.equal(r.status, 401, `free ${path}`);
      assert.match(r.body.detail, /available from the reporting plan upward; this company is on the free plan/);
    }
    assert.equal((await get('/compliance/status', free)).status, 401);
  });
});
