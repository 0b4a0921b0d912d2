import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, findings, sboms } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { csrfOf } from '../helpers/dashboard.js';
import { cycloneDx, sarif } from '../helpers/evidence.js';
import { makeMember } from '../helpers/team.js';

let t: TestApp;
let acme: Tenant;
let rival: Tenant;
let adminCookie = '';
let viewerCookie = '';

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  rival = await makeTenant(t.database.db);
  await upsertProduct(t.database.db, operatorContext(), acme.company.id, { name: 'Thermostat T2', identifier: 'thermo-t2' });
  await upsertProduct(t.database.db, operatorContext(), rival.company.id, { name: 'Their box', identifier: 'their-box' });
  adminCookie = await signInCookie(t, acme.admin.email);
  const viewer = await makeMember(t.database.db, acme.company.id, acme.admin.id, 'viewer');
  viewerCookie = await signInCookie(t, viewer.email);
});
after(() => t.close());

/** A multipart form as a browser encodes it (the platform's own FormData encoder), the CSRF field first. */
async function upload(path: string, fields: { csrf?: string | undefined; product: string; file?: string | Buffer | undefined }, cookie = adminCookie) {
  const csrf = fields.csrf ?? csrfOf((await t.app.inject({ url: '/evidence', headers: { host: SITE, cookie } })).body);
  const fd = new FormData();
  fd.append('_csrf', csrf);
  fd.append('product', fields.product);
  if (fields.file !== undefined) fd.append('document', new Blob([fields.file], { type: 'application/json' }), 'upload.json');
  const encoded = new Request('http://localhost/', { method: 'POST', body: fd });
  return t.app.inject({
    method: 'POST',
    url: path,
    headers: { host: SITE, cookie, origin: `http://${SITE}`, 'content-type': encoded.headers.get('content-type') ?? '' },
    payload: Buffer.from(await encoded.arrayBuffer()),
  });
}
const sbomRows = (companyId = acme.company.id) => t.database.db.select().from(sboms).where(eq(sboms.companyId, companyId));
const sbom = cycloneDx(
  [
    { name: 'openssl', version: '3.0.1' },
    { name: 'zlib', version: '1.2.13' },
  ],
  ['openssl'],
);

describe('evidence uploads in the dashboard', () => {
  it('offers both upload forms to a member who may upload, as multipart with the CSRF field first', async () => {
    const page = await t.app.inject({ url: '/evidence', headers: { host: SITE, cookie: adminCookie } });
    for (const action of ['/evidence/sboms', '/evidence/findings']) {
      assert.match(page.body, new RegExp(`<form method="post" action="${action}" enctype="multipart/form-data"[^>]*><input type="hidden" name="_csrf"`));
    }
    const chosen = await t.app.inject({ url: '/evidence?product=thermo-t2', headers: { host: SITE, cookie: adminCookie } });
    assert.equal([...chosen.body.matchAll(/<option value="thermo-t2" selected>/g)].length, 2, "a product page's upload link chooses it in both forms");
    const asViewer = await t.app.inject({ url: '/evidence', headers: { host: SITE, cookie: viewerCookie } });
    assert.ok(!asViewer.body.includes('enctype="multipart/form-data"'), 'a viewer sees no upload form');
  });

  it('stores an uploaded SBOM as the product’s next version, audited as the member, and says so', async () => {
    const res = await upload('/evidence/sboms', { product: 'thermo-t2', file: sbom });
    assert.equal(res.statusCode, 303, res.body.slice(0, 400));
    assert.equal(res.headers.location, '/evidence?done=sbom&product=thermo-t2&version=1');
    const [row] = await sbomRows();
    assert.equal(row?.version, 1);
    assert.equal(row?.componentCount, 2);
    const [audit] = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, acme.company.id), eq(auditLog.targetId, row?.id ?? '')));
    assert.equal(audit?.actorType, 'user');
    assert.equal(audit?.actorId, acme.admin.id);
    const page = await t.app.inject({ url: String(res.headers.location), headers: { host: SITE, cookie: adminCookie } });
    assert.match(page.body, /SBOM uploaded for thermo-t2: version 1\./);
  });

  it('uploads a SARIF scan and reports its new findings', async () => {
    const log = sarif('semgrep', [{ rule: 'sql-injection', file: 'src/db.c', line: 42, level: 'error' }]);
    const res = await upload('/evidence/findings', { product: 'thermo-t2', file: log });
    assert.equal(res.statusCode, 303, res.body.slice(0, 400));
    assert.match(String(res.headers.location), /^\/evidence\?done=sarif&product=thermo-t2&new=1&fixed=0&reopened=0&unchanged=0$/);
    const stored = await t.database.db.select().from(findings).where(eq(findings.companyId, acme.company.id));
    assert.equal(stored.length, 1);
  });

  it('refuses a file that is not an SBOM, no file, or another company’s product, re-rendering the page and storing nothing', async () => {
    const before = (await sbomRows()).length;
    const bad = await upload('/evidence/sboms', { product: 'thermo-t2', file: '{"not": "an sbom"}' });
    assert.ok([400, 415, 422].includes(bad.statusCode), String(bad.statusCode));
    assert.match(bad.body, /role="alert">Nothing was stored: /);
    assert.match(bad.body, /<option value="thermo-t2" selected>/, 'the chosen product stays chosen');
    const none = await upload('/evidence/sboms', { product: 'thermo-t2' });
    assert.equal(none.statusCode, 400);
    assert.match(none.body, /Nothing was uploaded: choose a CycloneDX or SPDX JSON file/);
    const theirs = await upload('/evidence/sboms', { product: 'their-box', file: sbom });
    assert.equal(theirs.statusCode, 404);
    assert.equal((await sbomRows()).length, before);
    assert.equal((await sbomRows(rival.company.id)).length, 0);
  });

  it('refuses a viewer, a wrong CSRF token and a visitor without a session, storing nothing', async () => {
    const before = (await sbomRows()).length;
    const viewer = await upload('/evidence/sboms', { product: 'thermo-t2', file: sbom }, viewerCookie);
    assert.equal(viewer.statusCode, 403);
    const forged = await upload('/evidence/sboms', { product: 'thermo-t2', file: sbom, csrf: 'f'.repeat(64) });
    assert.equal(forged.statusCode, 403);
    const anonymous = await upload('/evidence/sboms', { product: 'thermo-t2', file: sbom, csrf: 'x' }, '');
    assert.equal(anonymous.statusCode, 303);
    assert.match(String(anonymous.headers.location), /^\/login/);
    assert.equal((await sbomRows()).length, before);
  });
});

describe('evidence upload size limit', () => {
  let small: TestApp;
  before(async () => {
    small = await createTestApp({ EVIDENCE_MAX_BYTES: '4096' });
  });
  after(() => small.close());

  it('answers 413 for a file over EVIDENCE_MAX_BYTES', async () => {
    const c = await makeTenant(small.database.db);
    await upsertProduct(small.database.db, operatorContext(), c.company.id, { name: 'Big', identifier: 'big' });
    const cookie = await signInCookie(small, c.admin.email);
    const csrf = csrfOf((await small.app.inject({ url: '/evidence', headers: { host: SITE, cookie } })).body);
    const fd = new FormData();
    fd.append('_csrf', csrf);
    fd.append('product', 'big');
    fd.append('document', new Blob([Buffer.alloc(10_000, 0x20)], { type: 'application/json' }), 'big.json');
    const encoded = new Request('http://localhost/', { method: 'POST', body: fd });
    const body = Buffer.from(await encoded.arrayBuffer());
    const res = await small.app.inject({
      method: 'POST',
      url: '/evidence/sboms',
      headers: { host: SITE, cookie, origin: `http://${SITE}`, 'content-type': encoded.headers.get('content-type') ?? '' },
      payload: body,
    });
    assert.equal(res.statusCode, 413);
    // A browser's upload gets the page, which says nothing was kept and how to return to the form.
    const page = await small.app.inject({
      method: 'POST',
      url: '/evidence/sboms',
      headers: { host: SITE, cookie, origin: `http://${SITE}`, accept: 'text/html', 'content-type': encoded.headers.get('content-type') ?? '' },
      payload: body,
    });
    assert.equal(page.statusCode, 413);
    assert.match(page.body, /Nothing was saved\. Go back to the form with your browser&#39;s Back button/);
    assert.equal((await small.database.db.select().from(sboms)).length, 0);
  });
});
