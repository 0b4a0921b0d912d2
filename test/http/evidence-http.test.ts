import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { API_BASE } from '../../src/http/api-routes.js';
import { operatorContext } from '../../src/kernel/context.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { cycloneDx, fixture, type Pkg, sarif } from '../helpers/evidence.js';

let t: TestApp;
let acme: Tenant;
let rival: Tenant;
let key: string;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  rival = await makeTenant(t.database.db);
  for (const [tenant, id] of [
    [acme, 'gateway'],
    [acme, 'sensor'],
    [rival, 'rival-box'],
  ] as const) {
    await upsertProduct(t.database.db, operatorContext(), tenant.company.id, { name: id, identifier: id });
  }
  key = (await makeKey(t.database.db, acme)).key;
});
after(() => t.close());

const push = (path: '/sboms' | '/sarif', query: string, body: Buffer | string, contentType: string | undefined, k = key) => {
  const headers: Record<string, string> = { ...bearer(k), ...(contentType ? { 'content-type': contentType } : {}) };
  return t.app.inject({ method: 'POST', url: `${API_BASE}${path}?${query}`, headers, payload: body });
};
const get = (path: string, k = key) => t.app.inject({ method: 'GET', url: `${API_BASE}${path}`, headers: bearer(k) });
const CDX = 'application/vnd.cyclonedx+json';

describe('POST /sboms', () => {
  it('stores a real cyclonedx-npm SBOM sent with its own media type and answers its metadata', async () => {
    const bytes = fixture('cradle-cyclonedx-npm-1.6.cdx.json');
    const res = await push('/sboms', 'product=gateway', bytes, CDX);
    assert.equal(res.statusCode, 201, res.body);
    const b = res.json();
    assert.equal(b.productIdentifier, 'gateway');
    assert.equal(b.format, 'cyclonedx');
    assert.equal(b.specVersion, '1.6');
    assert.equal(b.version, 1);
    assert.equal(b.componentCount, 96);
    assert.equal(b.added, 96);
    assert.equal(b.previousId, null);
    assert.equal(b.sha256, createHash('sha256').update(bytes).digest('hex'));
  });

  it('stores a real npm SPDX 2.3 SBOM sent as application/spdx+json', async () => {
    const res = await push('/sboms', 'product=sensor', fixture('cradle-npm-sbom.spdx.json'), 'application/spdx+json');
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual([res.json().format, res.json().specVersion, res.json().productIdentifier], ['spdx', '2.3', 'sensor']);
    assert.ok(res.json().componentCount > 50);
  });

  it('accepts application/json with a charset, and a media type parameter on the format type', async () => {
    const doc = cycloneDx([{ name: 'a', version: '1.0.0' }], ['a']);
    assert.equal((await push('/sboms', 'product=sensor', doc, 'application/json; charset=utf-8')).statusCode, 201);
    assert.equal((await push('/sboms', 'product=sensor', doc, `${CDX}; version=1.6`)).statusCode, 201);
  });

  for (const type of ['text/plain', 'application/xml', 'application/sarif+json', 'application/x-www-form-urlencoded', undefined]) {
    it(`refuses Content-Type ${type ?? '(none)'} with 415 naming the accepted types`, async () => {
      const res = await push('/sboms', 'product=gateway', cycloneDx([], []), type);
      assert.equal(res.statusCode, 415, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.match(res.json().detail, /application\/vnd\.cyclonedx\+json/);
    });
  }

  it("refuses an unknown product, and another company's product, with 404 and stores nothing", async () => {
    const doc = cycloneDx([], []);
    for (const product of ['no-such-product', 'rival-box']) {
      const res = await push('/sboms', `product=${product}`, doc, CDX);
      assert.equal(res.statusCode, 404, res.body);
      assert.match(res.json().detail, /product not found/);
    }
    const rivalKey = (await makeKey(t.database.db, rival)).key;
    assert.deepEqual((await get('/sboms', rivalKey)).json().items, []);
  });

  it('refuses a push without a product with 400 naming the field', async () => {
    const res = await push('/sboms', '', cycloneDx([], []), CDX);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().errors[0].path, 'product');
  });

  it('refuses a schema-invalid document with 400 and JSON pointers to the problems', async () => {
    const doc = JSON.parse(cycloneDx([{ name: 'a', version: '1.0.0', sha256: 'f'.repeat(64) }], ['a']));
    doc.components[0].hashes[0].alg = 'NOT-AN-ALG';
    const res = await push('/sboms', 'product=gateway', JSON.stringify(doc), CDX);
    assert.equal(res.statusCode, 400, res.body);
    assert.ok(
      res.json().errors.some((e: { path: string }) => e.path === '/components/0/hashes/0/alg'),
      res.body,
    );
  });

  it('refuses SPDX 3 JSON-LD and malformed JSON cleanly', async () => {
    const ld = await push(
      '/sboms',
      'product=gateway',
      JSON.stringify({ '@context': 'https://spdx.org/rdf/3.0.1/spdx-context.jsonld', '@graph': [] }),
      'application/json',
    );
    assert.equal(ld.statusCode, 415);
    assert.match(ld.json().detail, /SPDX 3/);
    const bad = await push('/sboms', 'product=gateway', '{"bomFormat": ', 'application/json');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.json().detail, /not valid JSON/);
  });

  it('accepts documents far above the 1 MiB limit of other routes, which keep theirs', async () => {
    const pkgs: Pkg[] = Array.from({ length: 9000 }, (_, i) => ({
      name: `package-number-${i}`,
      version: `1.${i}.0`,
      license: 'MIT',
      sha256: createHash('sha256').update(String(i)).digest('hex'),
    }));
    const big = cycloneDx(
      pkgs,
      pkgs.slice(0, 10).map((p) => p.name),
    );
    assert.ok(big.length > 2 * 1024 * 1024, `${big.length}`);
    const res = await push('/sboms', 'product=gateway', big, CDX);
    assert.equal(res.statusCode, 201, res.body.slice(0, 300));
    assert.equal(res.json().componentCount, 9000);
    const other = await t.app.inject({
      method: 'POST',
      url: `${API_BASE}/products`,
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x', identifier: 'y', producer: 'p'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(other.statusCode, 413);
  });

  it('answers 401 at once, without reading the document, when the key is missing', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `${API_BASE}/sboms?product=gateway`,
      headers: { host: SITE, 'content-type': CDX },
      payload: cycloneDx([], []),
    });
    assert.equal(res.statusCode, 401);
    assert.match(res.json().detail, /Authorization header/);
  });
});

describe('the configured document limit', () => {
  it('answers 413 beyond EVIDENCE_MAX_BYTES, for SBOMs and SARIF logs', async () => {
    const small = await createTestApp({ EVIDENCE_MAX_BYTES: '4096' });
    try {
      const tenant = await makeTenant(small.database.db);
      await upsertProduct(small.database.db, operatorContext(), tenant.company.id, { name: 'p', identifier: 'p' });
      const k = (await makeKey(small.database.db, tenant)).key;
      const pkgs: Pkg[] = Array.from({ length: 60 }, (_, i) => ({ name: `pkg-${i}`, version: '1.0.0' }));
      const doc = cycloneDx(pkgs, []);
      assert.ok(doc.length > 4096);
      for (const path of ['/sboms', '/sarif']) {
        const res = await small.app.inject({
          method: 'POST',
          url: `${API_BASE}${path}?product=p`,
          headers: { ...bearer(k), 'content-type': 'application/json' },
          payload: doc,
        });
        assert.equal(res.statusCode, 413, `${path}: ${res.body}`);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      }
      const fits = await small.app.inject({
        method: 'POST',
        url: `${API_BASE}/sboms?product=p`,
        headers: { ...bearer(k), 'content-type': 'application/json' },
        payload: cycloneDx(pkgs.slice(0, 3), []),
      });
      assert.equal(fits.statusCode, 201, fits.body);
    } finally {
      await small.close();
    }
  });
});

describe('CycloneDX conformance vectors over HTTP', () => {
  const root = new URL('../fixtures/cyclonedx-conformance/', import.meta.url);
  it('accepts the valid-* and refuses the invalid-* vectors of every version with problem+json', async () => {
    for (const v of ['1.4', '1.5', '1.6', '1.7']) {
      const files = readdirSync(new URL(`${v}/`, root))
        .filter((f) => f.endsWith('.json'))
        .sort();
      // A sample per version (the verb's own suite pushes all of them on both databases).
      const sample = [...files.filter((f) => f.startsWith('valid-')).slice(0, 3), ...files.filter((f) => f.startsWith('invalid-')).slice(0, 3)];
      for (const f of sample) {
        const res = await push('/sboms', 'product=sensor', readFileSync(new URL(`${v}/${f}`, root)), CDX);
        if (f.startsWith('valid-')) assert.equal(res.statusCode, 201, `${v}/${f}: ${res.body}`);
        else {
          assert.ok(res.statusCode === 400 || res.statusCode === 415, `${v}/${f}: ${res.statusCode}`);
          assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        }
      }
    }
  });
});

describe('reading SBOMs', () => {
  let first: { id: string };
  let second: { id: string };
  before(async () => {
    await upsertProduct(t.database.db, operatorContext(), acme.company.id, { name: 'Router', identifier: 'router' });
    const v1: Pkg[] = [
      { name: 'lodash', version: '4.17.20', license: 'MIT' },
      { name: 'left-pad', version: '1.3.0' },
      { name: 'ms', version: '2.1.3' },
    ];
    const v2: Pkg[] = [
      { name: 'lodash', version: '4.17.21', license: 'MIT' },
      { name: 'ms', version: '2.1.3' },
      { name: 'debug', version: '4.3.4', deps: ['ms'] },
    ];
    first = (await push('/sboms', 'product=router', cycloneDx(v1, ['lodash', 'left-pad', 'ms']), CDX)).json();
    second = (await push('/sboms', 'product=router', cycloneDx(v2, ['lodash', 'debug']), CDX)).json();
  });

  it("lists one product's versions newest first with their diff counts", async () => {
    const res = await get('/sboms?product=router');
    assert.equal(res.statusCode, 200);
    const items = res.json().items as { id: string; version: number; added: number; removed: number; changed: number; previousId: string | null }[];
    assert.deepEqual(
      items.map((i) => [i.version, i.added, i.removed, i.changed, i.previousId]),
      [
        [2, 1, 1, 1, first.id],
        [1, 3, 0, 0, null],
      ],
    );
    assert.equal(res.json().nextOffset, null);
    const page = await get('/sboms?product=router&limit=1');
    assert.deepEqual([page.json().items[0].id, page.json().nextOffset], [second.id, 1]);
  });

  it('refuses an unknown query parameter and a bad limit with 400 naming them', async () => {
    assert.equal((await get('/sboms?color=red')).json().errors[0].path, '');
    const bad = await get('/sboms?limit=0');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, 'limit');
  });

  it('gives the metadata, the components page by page and the diff', async () => {
    assert.equal((await get(`/sboms/${second.id}`)).json().version, 2);
    const p1 = (await get(`/sboms/${second.id}/components?limit=2`)).json();
    assert.deepEqual(
      p1.items.map((c: { name: string; relationship: string }) => [c.name, c.relationship]),
      [
        ['lodash', 'direct'],
        ['ms', 'transitive'],
      ],
    );
    assert.equal(p1.nextOffset, 2);
    const p2 = (await get(`/sboms/${second.id}/components?limit=2&offset=2`)).json();
    assert.deepEqual([p2.items.map((c: { name: string }) => c.name), p2.nextOffset], [['debug'], null]);
    const diff = (await get(`/sboms/${second.id}/diff`)).json();
    assert.equal(diff.previousId, first.id);
    assert.deepEqual(
      diff.added.map((c: { name: string }) => c.name),
      ['debug'],
    );
    assert.deepEqual(
      diff.removed.map((c: { name: string }) => c.name),
      ['left-pad'],
    );
    assert.deepEqual(
      diff.changed.map((c: { before: { version: string }; after: { version: string }; fields: string[] }) => [c.before.version, c.after.version, c.fields]),
      [['4.17.20', '4.17.21', ['version', 'purl']]],
    );
  });

  it('serves the original byte for byte as an attachment with its own media type and nosniff', async () => {
    const bytes = fixture('cradle-npm-sbom.spdx.json');
    const pushed = (await push('/sboms', 'product=router', bytes, 'application/spdx+json')).json();
    const res = await get(`/sboms/${pushed.id}/document`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/spdx+json');
    assert.equal(res.headers['content-disposition'], 'attachment; filename="router-sbom-v3.spdx.json"');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['repr-digest'], `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`);
    assert.ok(res.rawPayload.equals(bytes));
    const cdx = await get(`/sboms/${first.id}/document`);
    assert.equal(cdx.headers['content-type'], CDX);
    assert.match(String(cdx.headers['content-disposition']), /^attachment; filename="router-sbom-v1\.cdx\.json"$/);
  });

  it("answers 404 for another company's SBOM on every read, and for ids that are not UUIDs", async () => {
    const rivalKey = (await makeKey(t.database.db, rival)).key;
    for (const suffix of ['', '/components', '/diff', '/document']) {
      const res = await get(`/sboms/${first.id}${suffix}`, rivalKey);
      assert.equal(res.statusCode, 404, `${suffix}: ${res.body}`);
      assert.ok(!res.body.includes('router'));
      assert.equal((await get(`/sboms/not-a-uuid${suffix}`)).statusCode, 404);
    }
  });
});

describe('POST /sarif and GET /findings', () => {
  const counts = (b: { new: number; fixed: number; reopened: number; unchanged: number }) => [b.new, b.fixed, b.reopened, b.unchanged];
  const scan1 = `product=gateway&sourceRoot=${encodeURIComponent('/tmp/evtools/sample')}`;
  const scan2 = `product=gateway&sourceRoot=${encodeURIComponent('/tmp/evtools/sample2/')}`;
  const findings = async (q: string) =>
    (await get(`/findings?${q}`)).json().items as { ruleId: string; state: string; severity: string; reopenCount: number; id: string; tool: string }[];

  it('reconciles real ESLint scans pushed over HTTP: same log twice, a fixed finding, then reopened', async () => {
    const first = await push('/sarif', scan1, fixture('eslint-scan-1.sarif'), 'application/sarif+json');
    assert.equal(first.statusCode, 201, first.body);
    assert.deepEqual([first.json().productIdentifier, first.json().resultCount, first.json().tools], ['gateway', 7, ['ESLint']]);
    assert.deepEqual(counts(first.json()), [7, 0, 0, 0]);
    const before = await findings('product=gateway');
    assert.deepEqual(counts((await push('/sarif', scan1, fixture('eslint-scan-1.sarif'), 'application/json')).json()), [0, 0, 0, 7]);
    assert.deepEqual(await findings('product=gateway'), before, 'the same log again changes nothing');

    const second = await push('/sarif', scan2, fixture('eslint-scan-2.sarif'), 'application/sarif+json');
    assert.deepEqual(counts(second.json()), [0, 1, 0, 6]);
    const fixed = await findings('product=gateway&state=fixed');
    assert.deepEqual(
      fixed.map((f) => f.ruleId),
      ['no-debugger'],
    );
    assert.equal((await findings('product=gateway&state=open')).length, 6);

    assert.deepEqual(counts((await push('/sarif', scan1, fixture('eslint-scan-1.sarif'), 'application/sarif+json')).json()), [0, 0, 1, 6]);
    const reopened = (await findings('product=gateway&state=open')).find((f) => f.ruleId === 'no-debugger');
    assert.deepEqual([reopened?.id, reopened?.reopenCount], [fixed[0]?.id, 1]);
  });

  it('filters findings by severity and tool, and pages them', async () => {
    const mixed = sarif('Semgrep', [
      { rule: 'sql-injection', file: 'src/db.js', line: 4, level: 'error' },
      { rule: 'todo-comment', file: 'src/db.js', line: 9, level: 'note' },
    ]);
    assert.deepEqual(counts((await push('/sarif', 'product=gateway', mixed, 'application/sarif+json')).json()), [2, 0, 0, 0]);
    assert.deepEqual(
      (await findings('tool=Semgrep')).map((f) => [f.ruleId, f.severity]),
      [
        ['sql-injection', 'high'],
        ['todo-comment', 'low'],
      ],
    );
    assert.deepEqual(
      (await findings('product=gateway&severity=low')).map((f) => [f.tool, f.ruleId]),
      [['Semgrep', 'todo-comment']],
    );
    assert.deepEqual(await findings('product=sensor'), []);
    assert.equal((await findings('tool=ESLint&state=open&limit=1000')).length, 7, 'the Semgrep scan left ESLint findings alone');
    const page = (await get('/findings?product=gateway&limit=2')).json();
    assert.deepEqual([page.items.length, page.nextOffset], [2, 2]);
    const bad = await get('/findings?severity=urgent');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().errors[0].path, 'severity');
  });

  it('refuses other media types with 415, an unknown product with 404, and another version of SARIF with 400', async () => {
    assert.equal((await push('/sarif', 'product=gateway', fixture('eslint-scan-1.sarif'), CDX)).statusCode, 415);
    assert.equal((await push('/sarif', 'product=rival-box', fixture('eslint-scan-1.sarif'), 'application/sarif+json')).statusCode, 404);
    const old = await push('/sarif', 'product=gateway', JSON.stringify({ version: '2.0.0', runs: [] }), 'application/json');
    assert.equal(old.statusCode, 400);
  });

  it("never lists another company's findings", async () => {
    const rivalKey = (await makeKey(t.database.db, rival)).key;
    assert.deepEqual((await get('/findings', rivalKey)).json(), { items: [], nextOffset: null });
  });
});
