import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { pushSarif } from '../../src/modules/findings/push-sarif.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../src/modules/sboms/push-sbom.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { cycloneDx, type Pkg, sarif } from '../helpers/evidence.js';

const EVIL = '<img src=x onerror=alert(1)>';
const ESCAPED = '&lt;img src=x onerror=alert(1)&gt;';

let t: TestApp;
let acme: Tenant;
let rival: Tenant;
let cookie: string;
let v1: string;
let v2: string;
let rivalSbom: string;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  rival = await makeTenant(t.database.db);
  cookie = await signInCookie(t, acme.admin.email);
  const db = t.database.db;
  const ctx = operatorContext();
  await upsertProduct(db, ctx, acme.company.id, { name: `Router ${EVIL}`, identifier: 'router' });
  await upsertProduct(db, ctx, acme.company.id, { name: 'Sensor', identifier: 'sensor' });
  const many: Pkg[] = Array.from({ length: 60 }, (_, i) => ({ name: `lib-${String(i).padStart(2, '0')}`, version: '1.0.0' }));
  v1 = (
    await pushSbom(
      db,
      ctx,
      acme.company.id,
      'router',
      cycloneDx([...many, { name: 'left-pad', version: '1.3.0' }, { name: 'lodash', version: '4.17.20' }], ['lodash']),
    )
  ).id;
  v2 = (
    await pushSbom(
      db,
      ctx,
      acme.company.id,
      'router',
      cycloneDx([...many, { name: 'lodash', version: '4.17.21' }, { name: EVIL, version: '6.6.6', license: 'MIT' }], ['lodash']),
    )
  ).id;
  await pushSarif(
    db,
    ctx,
    acme.company.id,
    'router',
    sarif('Semgrep', [
      { rule: 'sql-injection', file: 'src/db.js', line: 4, level: 'error', message: `query built from ${EVIL}` },
      { rule: 'todo', file: 'src/db.js', line: 9, level: 'note' },
    ]),
  );
  await pushSarif(db, ctx, acme.company.id, 'router', sarif('Semgrep', [{ rule: 'todo', file: 'src/db.js', line: 9, level: 'note' }]));
  await upsertProduct(db, ctx, rival.company.id, { name: 'Rival', identifier: 'rival' });
  rivalSbom = (await pushSbom(db, ctx, rival.company.id, 'rival', cycloneDx([{ name: 'secret-lib', version: '1' }], []))).id;
});
after(() => t.close());

const page = (url: string, c = cookie) => t.app.inject({ url, headers: { host: SITE, cookie: c, accept: 'text/html' } });

describe('dashboard evidence pages', () => {
  it('sends a signed-out visitor to sign in', async () => {
    const res = await page('/evidence', '');
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/login?next=%2Fevidence');
  });

  it('lists every product with its latest SBOM, the change from the previous one and open findings, escaped', async () => {
    const res = await page('/evidence');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<a href="\/evidence" aria-current="page">Evidence<\/a>/);
    assert.ok(res.body.includes(`Router ${ESCAPED}`) && !res.body.includes(EVIL));
    assert.match(res.body, /version 2<\/a> \(CycloneDX 1\.6\)/);
    assert.match(res.body, /<span class="added">\+1<\/span> <span class="removed">−1<\/span> <span class="changed">~1<\/span>/);
    assert.match(res.body, /<span class="sev sev-low">1 low<\/span>/, 'the fixed sql-injection finding is not counted');
    assert.match(res.body, /<td>Sensor<br><code>sensor<\/code><\/td>\s*<td>none<\/td>/);
    assert.ok(!res.body.includes('Rival'));
  });

  it("shows a product's versions newest first, and 404 for an unknown product", async () => {
    const res = await page('/evidence/sboms?product=router');
    assert.equal(res.statusCode, 200);
    const versions = [...res.body.matchAll(/<a href="\/evidence\/sboms\/([0-9a-f-]{36})">(\d+)<\/a>/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(versions, [
      [v2, '2'],
      [v1, '1'],
    ]);
    assert.match(res.body, /first version/);
    assert.equal((await page('/evidence/sboms?product=rival')).statusCode, 404);
  });

  it('shows an SBOM with its diff and its components page by page, escaped', async () => {
    const res = await page(`/evidence/sboms/${v2}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<h3>Added \(1\)<\/h3><ul class="diff"><li>&lt;img src=x onerror=alert\(1\)&gt; <code>6\.6\.6<\/code><\/li><\/ul>/);
    assert.match(res.body, /<h3>Removed \(1\)<\/h3><ul class="diff"><li>left-pad <code>1\.3\.0<\/code><\/li>/);
    assert.match(res.body, /lodash <code>4\.17\.20<\/code> → <code>4\.17\.21<\/code>/);
    assert.equal([...res.body.matchAll(/<tr><td>\d+<\/td>/g)].length, 50);
    assert.ok(!res.body.includes(EVIL));
    assert.match(res.body, new RegExp(`<a href="/evidence/sboms/${v2}\\?offset=50" rel="next">Next</a>`));
    const p2 = await page(`/evidence/sboms/${v2}?offset=50`);
    assert.deepEqual(
      [...p2.body.matchAll(/<tr><td>(\d+)<\/td>/g)].map((m) => Number(m[1])),
      Array.from({ length: 12 }, (_, i) => 51 + i),
    );
    assert.doesNotMatch(p2.body, /rel="next"/);
    assert.match(p2.body, new RegExp(`<a href="/evidence/sboms/${v2}\\?offset=0" rel="prev">Previous</a>`));
    assert.ok(p2.body.includes(`<td>${ESCAPED}</td>`));
    assert.match((await page(`/evidence/sboms/${v1}`)).body, /first SBOM: there is nothing to compare with/);
  });

  it('downloads the original as an attachment', async () => {
    const res = await page(`/evidence/sboms/${v1}/document`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/vnd.cyclonedx+json');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="router-sbom-v1.cdx.json"');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(JSON.parse(res.body).bomFormat, 'CycloneDX');
  });

  it("answers 404 for another company's SBOM on every page", async () => {
    for (const suffix of ['', '/document']) {
      const res = await page(`/evidence/sboms/${rivalSbom}${suffix}`);
      assert.equal(res.statusCode, 404);
      assert.ok(!res.body.includes('secret-lib'));
    }
  });

  it('filters findings by state and severity, escapes messages, and refuses bad filters with 400', async () => {
    const open = await page('/evidence/findings?product=router&state=open');
    assert.deepEqual(
      [...open.body.matchAll(/<code>(sql-injection|todo)<\/code>/g)].map((m) => m[1]),
      ['todo'],
    );
    const fixed = await page('/evidence/findings?state=fixed&severity=high&tool=');
    assert.deepEqual(
      [...fixed.body.matchAll(/<code>(sql-injection|todo)<\/code>/g)].map((m) => m[1]),
      ['sql-injection'],
    );
    assert.ok(fixed.body.includes(`query built from ${ESCAPED}`) && !fixed.body.includes(EVIL));
    assert.match(fixed.body, /<option value="fixed" selected>fixed<\/option>/);
    assert.match(fixed.body, /<option value="router" >Router &lt;img/);
    const bad = await page('/evidence/findings?severity=urgent');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /Some filters were invalid/);
  });
});
