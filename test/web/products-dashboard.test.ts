import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, products } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { getProductCraFacts } from '../../src/modules/compliance/product-cra-facts.js';
import { pushSbom } from '../../src/modules/sboms/push-sbom.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, portalHost, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';

let t: TestApp;
let acme: Tenant;
let rival: Tenant;
let client: ReturnType<typeof dashboardClient>;

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  rival = await makeTenant(t.database.db);
  client = dashboardClient(t, await signInCookie(t, acme.admin.email));
});
after(() => t.close());

const thermo = {
  name: 'Thermostat <T2>',
  identifier: 'thermo-t2',
  producer: 'Acme GmbH',
  firmwareVersion: '2.4.1',
  category: 'important_i',
  placedOnMarketAt: '2026-01-15',
  supportEndsAt: '2031-12-31',
  supportJustification: '',
};
const rows = async () => t.database.db.select().from(products).where(eq(products.companyId, acme.company.id));
const errorOf = (body: string, field: string) => new RegExp(`id="${field}-error">([^<]*)<`).exec(body)?.[1];

describe('dashboard products', () => {
  it('says there are none and offers the register form', async () => {
    const res = await client.page('/products');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /No products yet: register your first one/);
    assert.match(res.body, /<form method="post" action="\/products"/);
  });

  it('registers a product with its CRA facts in one go, audited, escaped, linked to compliance and evidence', async () => {
    const res = await client.form('/products', thermo);
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/products/thermo-t2?done=registered');
    const [row] = await rows();
    assert.equal(row?.name, 'Thermostat <T2>');
    assert.equal(row?.firmwareVersion, '2.4.1');
    const facts = await getProductCraFacts(t.database.db, acme.company.id, 'thermo-t2');
    assert.equal(facts.category, 'important_i');
    assert.equal(facts.supportEndsAt, '2031-12-31T00:00:00.000Z');
    assert.equal(facts.placedOnMarketAt, '2026-01-15T00:00:00.000Z');
    const actions = (
      await t.database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.companyId, acme.company.id), eq(auditLog.targetId, row?.id ?? '')))
    )
      .map((a) => a.action)
      .sort();
    assert.deepEqual(actions, ['compliance.product_facts', 'products.create']);

    const list = await client.page('/products');
    assert.ok(list.body.includes('Thermostat &lt;T2&gt;') && !list.body.includes('<T2>'));
    assert.ok(list.body.includes('href="/compliance?product=thermo-t2"'));
    assert.ok(list.body.includes('href="/evidence/sboms?product=thermo-t2"'));
    assert.match(list.body, /<td>Important, class I \(Annex III\)<\/td>\s*<td>2031-12-31<\/td>/);
    const form = await t.app.inject({ url: '/submit', headers: { host: portalHost(acme.company.slug) } });
    assert.ok(form.body.includes('Thermostat &lt;T2&gt;'), 'offered in the portal dropdown at once');
  });

  it('refuses a second product with the same identifier with a message, changing nothing', async () => {
    const res = await client.form('/products', { ...thermo, name: 'Other' });
    assert.equal(res.statusCode, 409);
    assert.match(errorOf(res.body, 'identifier') ?? '', /already registered: edit it instead/);
    assert.equal((await rows())[0]?.name, 'Thermostat <T2>');
  });

  it('re-renders the register form with messages for bad input and keeps what was typed', async () => {
    const res = await client.form('/products', { ...thermo, identifier: 'cam-1', name: ' ', supportEndsAt: 'soon', producer: 'x'.repeat(256) });
    assert.equal(res.statusCode, 400);
    assert.ok(errorOf(res.body, 'name'), 'name has a message');
    assert.ok(errorOf(res.body, 'supportEndsAt'), 'date has a message');
    assert.match(errorOf(res.body, 'producer') ?? '', /255/);
    assert.ok(res.body.includes('value="cam-1"'));
    assert.equal((await rows()).length, 1, 'nothing half-saved');
  });

  it('edits the fields and facts; the identifier stays', async () => {
    const res = await client.form('/products/thermo-t2', {
      ...thermo,
      identifier: 'ignored',
      name: 'Thermostat T2',
      firmwareVersion: '',
      supportEndsAt: '2028-01-01',
      supportJustification: 'Battery life is two years.',
    });
    assert.equal(res.statusCode, 303);
    const [row] = await rows();
    assert.equal(row?.identifier, 'thermo-t2');
    assert.equal(row?.name, 'Thermostat T2');
    assert.equal(row?.firmwareVersion, null);
    const facts = await getProductCraFacts(t.database.db, acme.company.id, 'thermo-t2');
    assert.equal(facts.supportJustification, 'Battery life is two years.');
    const page = await client.page('/products/thermo-t2?done=saved');
    assert.match(page.body, /value="2028-01-01"/);
  });

  it('archives: gone from the portal dropdown and compliance, no new evidence; restores', async () => {
    assert.equal((await client.form('/products/thermo-t2/archive', {})).statusCode, 303);
    assert.ok((await rows())[0]?.archivedAt);
    const form = await t.app.inject({ url: '/submit', headers: { host: portalHost(acme.company.slug) } });
    assert.ok(!form.body.includes('Thermostat T2'));
    const compliance = await client.page('/compliance');
    assert.ok(!compliance.body.includes('Thermostat T2'));
    await assert.rejects(
      pushSbom(
        t.database.db,
        operatorContext(),
        acme.company.id,
        'thermo-t2',
        JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [] }),
      ),
      /archived/,
    );
    assert.match((await client.page('/products')).body, /<h2>Archived<\/h2>/);
    assert.equal((await client.form('/products/thermo-t2/restore', {})).statusCode, 303);
    assert.equal((await rows())[0]?.archivedAt, null);
  });

  it("answers 404 for another company's product", async () => {
    await client.form('/products', { ...thermo, identifier: 'mine' });
    const rivalClient = dashboardClient(t, await signInCookie(t, rival.admin.email));
    assert.equal((await rivalClient.page('/products/mine')).statusCode, 404);
    assert.equal((await rivalClient.form('/products/mine/archive', {})).statusCode, 404);
  });
});
