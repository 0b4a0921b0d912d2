// Issue 37, build item 4: every enumeration a page prints goes through a label table, and every time
// a page prints keeps its seconds and names its zone (src/web/labels.ts, src/web/times.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { proposeEmbargo } from '../../src/modules/cases/case-embargo.js';
import { openCase } from '../../src/modules/cases/open-case.js';
import { setProductCraFacts } from '../../src/modules/compliance/product-cra-facts.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { placeHold } from '../../src/modules/retention/legal-holds.js';
import { pushSbom } from '../../src/modules/sboms/push-sbom.js';
import type { SessionView } from '../../src/modules/sessions/sessions.js';
import { upstreamContactsPage } from '../../src/web/dashboard/upstream-page.js';
import { timeTag, utc } from '../../src/web/times.js';
import { makeKey, makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';

let t: TestApp;
let acme: Tenant;
let client: ReturnType<typeof dashboardClient>;
let caseId: string;

before(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const ctx = operatorContext();
  acme = await makeTenant(db);
  await upsertProduct(db, ctx, acme.company.id, { name: 'Gateway G1', identifier: 'gw-g1' });
  await setProductCraFacts(db, ctx, acme.company.id, 'gw-g1', { category: 'important_i', placedOnMarketAt: '2026-01-15T00:00:00.000Z' });
  await pushSbom(
    db,
    ctx,
    acme.company.id,
    'gw-g1',
    JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [{ type: 'library', name: 'lwip', version: '2.2.0' }] }),
  );
  await makeKey(db, acme, { name: 'ci' });
  caseId = (await openCase(db, ctx, acme.company.id, { title: 'lwip heap overflow' })).id;
  await proposeEmbargo(db, ctx, acme.company.id, caseId, { until: '2099-03-01' });
  await placeHold(db, { actor: { type: 'user', id: acme.admin.id } }, acme.company.id, { scope: 'company', reason: 'Matter 12' });
  client = dashboardClient(t, await signInCookie(t, acme.admin.email));
});
after(() => t.close());

const page = async (url: string): Promise<string> => {
  const res = await client.page(url);
  assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 300)}`);
  return res.body;
};

describe('enumerations in words', () => {
  it('names the CRA product category in words on the products and compliance pages', async () => {
    const products = await page('/products');
    assert.match(products, /<td>Important, class I \(Annex III\)<\/td>/);
    const overview = await page('/compliance');
    assert.match(overview, /<td>Important, class I \(Annex III\)<\/td>/);
    const one = await page('/compliance?product=gw-g1');
    assert.match(one, /Conformity route \(Important, class I \(Annex III\)\)/);
    assert.match(one, /<option value="important_i" selected>Important, class I \(Annex III\)<\/option>/);
    for (const body of [products, overview, one]) assert.doesNotMatch(body, />important[ _]i\b/);
  });

  it("shows a case's origin and its timeline in words", async () => {
    const body = await page(`/cases/${caseId}`);
    assert.match(body, /<dt>Origin<\/dt><dd>opened from scratch<\/dd>/);
    const timeline = /<ol class="timeline" id="timeline">([\s\S]*?)<\/ol>/.exec(body)?.[1] ?? '';
    assert.match(timeline, /<\/time> case opened /);
    assert.match(timeline, /<\/time> embargo proposed /);
    assert.doesNotMatch(timeline, /embargo_proposed|<\/time> opened /);
    assert.match(await page('/cases'), /<td>opened from scratch<\/td>/);
  });

  it('names the SBOM format, the plan and the audit outcome in words', async () => {
    assert.match(await page('/evidence/sboms?product=gw-g1'), /<td>CycloneDX 1\.6<\/td>/);
    const audit = await page('/audit');
    assert.match(audit, /<td>done<\/td>/);
    assert.doesNotMatch(audit, /<td>success<\/td>/);
    assert.match(audit, /<option value="denied" >refused<\/option>|<option value="denied">refused<\/option>/);
    assert.match(await page('/dashboard'), /<dt>Plan<\/dt><dd>Enterprise plan<\/dd>/);
    assert.match(await page('/settings/retention'), /<tr><td>the whole company<\/td><td>Matter 12<\/td>/);
  });

  it("names an upstream contact's channel, source and each source's outcome in words", () => {
    const session = {
      id: 's',
      tokenDigest: 'd',
      csrfToken: 'c',
      user: { id: acme.admin.id, email: acme.admin.email, role: 'psirt', secondFactor: false },
      company: { id: acme.company.id, name: 'Acme', slug: acme.company.slug, plan: 'enterprise', requireSecondFactor: false, suspended: false },
      expiresAt: new Date(Date.now() + 3_600_000),
    } satisfies SessionView;
    const body = upstreamContactsPage({
      session,
      purl: 'pkg:npm/left-pad@1.3.0',
      result: {
        purl: 'pkg:npm/left-pad@1.3.0',
        repository: 'https://github.com/left-pad/left-pad',
        website: null,
        contacts: [{ channel: 'email', address: 'security@left-pad.example', source: { kind: 'security_md', url: 'https://github.com/left-pad/left-pad' } }],
        sources: [
          { kind: 'github_pvr', url: 'https://api.github.com/repos/left-pad/left-pad', outcome: 'not_found', detail: 'reporting is off' },
          { kind: 'security_md', url: 'https://github.com/left-pad/left-pad', outcome: 'found', detail: 'an address' },
        ],
      },
    });
    assert.match(body, /<tr><td>e-mail<\/td><td>security@left-pad\.example<\/td>/);
    assert.match(body, /<td>GitHub private vulnerability reporting<br><span class="hint">[^<]+<\/span><\/td><td>nothing found<\/td>/);
    assert.doesNotMatch(body, /not_found|not found<\/td>|>email</);
  });
});

describe('times with their seconds and zone', () => {
  it('formats one way: seconds, UTC, the instant kept in the datetime attribute', () => {
    assert.equal(utc('2026-11-20T08:00:17.123Z'), '2026-11-20 08:00:17 UTC');
    assert.equal(utc('2026-11-20T09:00:17+01:00'), '2026-11-20 08:00:17 UTC', 'an offset is turned to UTC, never printed as if it were');
    assert.equal(String(timeTag(new Date('2026-11-20T08:00:17Z'))), '<time datetime="2026-11-20T08:00:17.000Z">2026-11-20 08:00:17 UTC</time>');
    assert.equal(String(timeTag(null, '—')), '—');
  });

  const MINUTES = /\b\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?!:\d\d)/;
  const NO_ZONE = /\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?! UTC)/;
  for (const url of [
    '/settings/api-keys',
    '/settings/team',
    '/account',
    '/audit',
    '/cases',
    '/case',
    '/evidence',
    '/evidence/sbom',
    '/compliance',
    '/settings/retention',
  ]) {
    it(`prints every time on ${url} to the second with its zone`, async () => {
      const target =
        url === '/case'
          ? `/cases/${caseId}`
          : url === '/evidence/sbom'
            ? '/evidence/sboms?product=gw-g1'
            : url === '/compliance'
              ? '/compliance?product=gw-g1'
              : url;
      const body = (await page(target)).replace(/datetime="[^"]*"/g, '');
      assert.match(body, /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/, 'the page shows at least one time');
      assert.doesNotMatch(body, MINUTES, /[^\n]{0,80}/.exec(body.slice(body.search(MINUTES)))?.[0]);
      assert.doesNotMatch(body, NO_ZONE);
    });
  }
});
