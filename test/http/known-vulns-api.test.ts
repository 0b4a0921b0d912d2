// Issue 25 "Done when", through the API as a CI pipeline would do it: the SBOM `npm sbom` made for
// a project with old dependencies is pushed over HTTP, and the known vulnerabilities read back
// over HTTP are exactly those of the records that cover its package versions.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { refreshVulndb } from '../../src/modules/known-vulns/refresh-vulndb.js';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { feedFolder, type TestRecord } from '../helpers/vulndb.js';

const NPM_SBOM = readFileSync(new URL('../fixtures/vulndb/npm-sbom-legacy-gateway.cdx.json', import.meta.url));
const npm = (id: string, cve: string, name: string, events: TestRecord['events']): TestRecord => ({ id, aliases: [cve], ecosystem: 'npm', name, events });

let t: TestApp;
let acme: Tenant;
let key: string;
before(async () => {
  t = await createTestApp();
  // Ranges as the public GitHub advisories state them; ms is fixed at 2.0.0, the SBOM's version.
  await refreshVulndb(t.database.db, feedFolder([
    npm('GHSA-p6mc-m468-83gw', 'CVE-2020-8203', 'lodash', [{ introduced: '3.7.0' }, { fixed: '4.17.19' }]),
    npm('GHSA-35jh-r3h4-6jhm', 'CVE-2021-23337', 'lodash', [{ introduced: '0' }, { fixed: '4.17.21' }]),
    npm('GHSA-vh95-rmgr-6w4m', 'CVE-2020-7598', 'minimist', [{ introduced: '0' }, { fixed: '0.2.1' }, { introduced: '1.0.0' }, { fixed: '1.2.3' }]),
    npm('GHSA-67hx-6x53-jw92', 'CVE-2023-45133', '@babel/traverse', [{ introduced: '0' }, { fixed: '7.23.2' }]),
    npm('GHSA-w9mr-4mfr-499f', 'CVE-2017-20162', 'ms', [{ introduced: '0' }, { fixed: '2.0.0' }]),
  ]));
  acme = await makeTenant(t.database.db);
  key = (await makeKey(t.database.db, acme, { scopes: ['read', 'sbom:write', 'products:write', 'triage:write'] })).key;
});
after(() => t.close());

const api = (method: 'GET' | 'POST', url: string, payload?: unknown, contentType = 'application/json') =>
  t.app.inject({ method, url: `/api/v1${url}`, headers: { ...bearer(key), ...(payload !== undefined ? { 'content-type': contentType } : {}) }, ...(payload !== undefined ? { payload: payload as string } : {}) });

describe('known vulnerabilities over the API', () => {
  it('an npm sbom pushed over HTTP yields exactly its advisories, and a decision carries over to the next push', async () => {
    assert.equal((await api('POST', '/products', { name: 'Legacy gateway', identifier: 'legacy-gateway' })).statusCode, 201);
    const push = await api('POST', '/sboms?product=legacy-gateway', NPM_SBOM.toString('utf8'), 'application/vnd.cyclonedx+json');
    assert.equal(push.statusCode, 201, push.body);
    const list = await api('GET', '/known-vulnerabilities?product=legacy-gateway&limit=100');
    assert.equal(list.statusCode, 200);
    const page = list.json() as { items: { id: string; vulnerability: string; component: { name: string; version: string }; fixedVersion: string }[]; coverage: { components: number; matchable: number } };
    assert.deepEqual(page.items.map((m) => `${m.vulnerability} ${m.component.name}@${m.component.version} -> ${m.fixedVersion}`).sort(), [
      'CVE-2020-7598 minimist@1.2.0 -> 1.2.3',
      'CVE-2020-8203 lodash@4.17.15 -> 4.17.19',
      'CVE-2021-23337 lodash@4.17.15 -> 4.17.21',
      'CVE-2023-45133 @babel/traverse@7.22.0 -> 7.23.2',
    ]);
    assert.deepEqual([page.coverage.components, page.coverage.matchable], [25, 25]);

    const lodash = page.items.find((m) => m.vulnerability === 'CVE-2021-23337')!;
    const decided = await api('POST', `/known-vulnerabilities/${lodash.id}/decision`, { state: 'not_affected', justification: 'code_not_reachable', detail: 'template() is never called.' });
    assert.equal(decided.statusCode, 200, decided.body);
    assert.equal((await api('POST', '/sboms?product=legacy-gateway', NPM_SBOM.toString('utf8'), 'application/vnd.cyclonedx+json')).statusCode, 201);
    const again = await api('GET', `/known-vulnerabilities/${lodash.id}`);
    assert.deepEqual((again.json() as { analysis: { state: string; detail: string } }).analysis.state, 'not_affected');
    const vex = await api('GET', '/known-vulnerabilities/vex?product=legacy-gateway&format=openvex');
    const statements = (vex.json() as { statements: { vulnerability: { name: string }; status: string }[] }).statements;
    assert.deepEqual(statements.map((s) => `${s.vulnerability.name} ${s.status}`).sort(), ['CVE-2020-7598 under_investigation', 'CVE-2020-8203 under_investigation', 'CVE-2021-23337 not_affected', 'CVE-2023-45133 under_investigation']);
  });

  it('refuses a bad decision with a problem document naming the field', async () => {
    const [m] = (((await api('GET', '/known-vulnerabilities')).json()) as { items: { id: string }[] }).items;
    const res = await api('POST', `/known-vulnerabilities/${m!.id}/decision`, { state: 'not_affected', detail: 'no justification' });
    assert.equal(res.statusCode, 400);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    assert.match(res.body, /justification/);
  });
});
