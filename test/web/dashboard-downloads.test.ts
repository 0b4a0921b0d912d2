import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { refreshVulndb } from '../../src/modules/known-vulns/refresh-vulndb.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../src/modules/sboms/push-sbom.js';
import { bearer, makeKey, makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';
import { compileSchema } from '../helpers/json-schema.js';
import { makeMember } from '../helpers/team.js';
import { feedFolder } from '../helpers/vulndb.js';

const NPM_SBOM = readFileSync(new URL('../fixtures/vulndb/npm-sbom-legacy-gateway.cdx.json', import.meta.url));

let t: TestApp;
let acme: Tenant;
let admin: ReturnType<typeof dashboardClient>;
let psirt: ReturnType<typeof dashboardClient>;
let viewer: ReturnType<typeof dashboardClient>;
let key = '';

before(async () => {
  t = await createTestApp();
  const db = t.database.db;
  await refreshVulndb(
    db,
    feedFolder([
      { id: 'GHSA-35jh-r3h4-6jhm', aliases: ['CVE-2021-23337'], ecosystem: 'npm', name: 'lodash', events: [{ introduced: '0' }, { fixed: '4.17.21' }] },
    ]),
  );
  acme = await makeTenant(db);
  await upsertProduct(db, operatorContext(), acme.company.id, { name: 'Legacy gateway', identifier: 'legacy-gateway' });
  await pushSbom(db, operatorContext(), acme.company.id, 'legacy-gateway', NPM_SBOM);
  key = (await makeKey(db, acme, { scopes: ['read'] })).key;
  admin = dashboardClient(t, await signInCookie(t, acme.admin.email));
  psirt = dashboardClient(t, await signInCookie(t, (await makeMember(db, acme.company.id, acme.admin.id, 'psirt')).email));
  viewer = dashboardClient(t, await signInCookie(t, (await makeMember(db, acme.company.id, acme.admin.id, 'viewer')).email));
});
after(() => t.close());

const fileName = (res: { headers: Record<string, unknown> }) => /^attachment; filename="([^"]+)"$/.exec(String(res.headers['content-disposition']))?.[1];
/** The document without the moment it was made, which two downloads never share. */
const timeless = (doc: Record<string, unknown>) =>
  JSON.stringify(doc, (k, v: unknown) => (k === 'timestamp' || k === '@id' || k === 'serialNumber' ? undefined : v));

describe('dashboard downloads', () => {
  it('the compliance page links the OSCAL catalog and assessment results, both valid against the official OSCAL schemas', async () => {
    const page = await viewer.page('/compliance');
    assert.match(page.body, /href="\/compliance\/oscal\/catalog" download/);
    assert.match(page.body, /href="\/compliance\/oscal\/assessments" download/);
    const catalog = await viewer.page('/compliance/oscal/catalog');
    assert.equal(fileName(catalog), 'cra-requirements.oscal.json');
    const validCatalog = compileSchema('oscal/oscal_catalog_schema.json');
    assert.ok(validCatalog(JSON.parse(catalog.body)), JSON.stringify(validCatalog.errors?.slice(0, 3)));

    const product = await viewer.page('/compliance?product=legacy-gateway');
    assert.match(product.body, /href="\/compliance\/oscal\/assessments\?product=legacy-gateway" download>assessment results of this product/);
    const results = await viewer.page('/compliance/oscal/assessments?product=legacy-gateway');
    assert.match(fileName(results) ?? '', /-legacy-gateway-assessments-\d{4}-\d\d-\d\d\.oscal\.json$/);
    const validResults = compileSchema('oscal/oscal_assessment-results_schema.json');
    assert.ok(validResults(JSON.parse(results.body)), JSON.stringify(validResults.errors?.slice(0, 3)));
    assert.equal((await viewer.page('/compliance/oscal/assessments?product=no-such-product')).statusCode, 404);
  });

  it("a product's VEX downloads as the API gives it, in both formats", async () => {
    const page = await viewer.page('/known-vulnerabilities?product=legacy-gateway');
    assert.match(page.body, /href="\/known-vulnerabilities\/vex\?product=legacy-gateway&amp;format=openvex" download/);
    for (const format of ['cyclonedx', 'openvex']) {
      const mine = await viewer.page(`/known-vulnerabilities/vex?product=legacy-gateway&format=${format}`);
      assert.equal(mine.statusCode, 200, mine.body.slice(0, 200));
      assert.match(fileName(mine) ?? '', format === 'openvex' ? /\.openvex\.json$/ : /\.cdx-vex\.json$/);
      const api = await t.app.inject({ url: `/api/v1/known-vulnerabilities/vex?product=legacy-gateway&format=${format}`, headers: bearer(key) });
      assert.equal(timeless(JSON.parse(mine.body)), timeless(api.json()));
      assert.match(mine.body, /CVE-2021-23337|GHSA-35jh-r3h4-6jhm/);
    }
    assert.equal((await viewer.page('/known-vulnerabilities/vex?product=no-such-product')).statusCode, 404);
  });

  it('an administrator downloads the company export, audited as them; PSIRT members and viewers may not', async () => {
    assert.match((await admin.page('/dashboard')).body, /href="\/settings\/export" download>Download all company data/);
    assert.ok(!(await viewer.page('/dashboard')).body.includes('/settings/export'));
    const res = await admin.page('/settings/export');
    assert.equal(res.statusCode, 200);
    assert.match(fileName(res) ?? '', new RegExp(`^${acme.company.slug}-export-\\d{4}-\\d\\d-\\d\\d\\.json$`));
    const doc = JSON.parse(res.body) as Record<string, unknown>;
    assert.ok(JSON.stringify(doc).includes('legacy-gateway'), 'the products are in it');
    const [audit] = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, acme.company.id), eq(auditLog.action, 'export.company_data')));
    assert.equal(audit?.actorId, acme.admin.id);
    assert.equal((await psirt.page('/settings/export')).statusCode, 403);
    assert.equal((await viewer.page('/settings/export')).statusCode, 403);
  });
});
