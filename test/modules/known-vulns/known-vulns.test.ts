// Known vulnerabilities end to end on the database: the real snapshots (OSV Go and PyPI, CISA KEV)
// and small npm/Maven records imported, SBOMs pushed, matches read back. Every expected set was
// derived by hand from the records named (see the comments), never from Cradle's own output.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { outboxEvents } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { listKnownVulns } from '../../../src/modules/known-vulns/list-known-vulns.js';
import { refreshVulndb } from '../../../src/modules/known-vulns/refresh-vulndb.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';
import { cycloneDxOf, feedFolder, spdxOf, type TestRecord, writeRecords } from '../../helpers/vulndb.js';

const SNAPSHOTS = new URL('../../../../shared/data/vulndb/', import.meta.url).pathname;
const NPM_SBOM = readFileSync(new URL('../../fixtures/vulndb/npm-sbom-legacy-gateway.cdx.json', import.meta.url));
const ctx = operatorContext();

// npm and Maven records: ranges as the public GitHub advisories of these ids state them.
const npm = (id: string, cve: string, name: string, events: TestRecord['events']): TestRecord => ({ id, aliases: [cve], ecosystem: 'npm', name, events });
const RECORDS: TestRecord[] = [
  npm('GHSA-p6mc-m468-83gw', 'CVE-2020-8203', 'lodash', [{ introduced: '3.7.0' }, { fixed: '4.17.19' }]),
  npm('GHSA-35jh-r3h4-6jhm', 'CVE-2021-23337', 'lodash', [{ introduced: '0' }, { fixed: '4.17.21' }]),
  npm('GHSA-29mw-wpgm-hmr9', 'CVE-2020-28500', 'lodash', [{ introduced: '4.0.0' }, { fixed: '4.17.21' }]),
  npm('GHSA-jf85-cpcp-j695', 'CVE-2019-10744', 'lodash', [{ introduced: '0' }, { fixed: '4.17.12' }]),
  npm('GHSA-vh95-rmgr-6w4m', 'CVE-2020-7598', 'minimist', [{ introduced: '0' }, { fixed: '0.2.1' }, { introduced: '1.0.0' }, { fixed: '1.2.3' }]),
  npm('GHSA-xvch-5gv4-984h', 'CVE-2021-44906', 'minimist', [{ introduced: '0' }, { fixed: '0.2.4' }, { introduced: '1.0.0' }, { fixed: '1.2.6' }]),
  npm('GHSA-67hx-6x53-jw92', 'CVE-2023-45133', '@babel/traverse', [
    { introduced: '0' },
    { fixed: '7.23.2' },
    { introduced: '8.0.0-alpha.0' },
    { fixed: '8.0.0-alpha.4' },
  ]),
  // ms 2.0.0 is the fixed version: the SBOM's ms@2.0.0 and ms@2.1.3 stay out.
  npm('GHSA-w9mr-4mfr-499f', 'CVE-2017-20162', 'ms', [{ introduced: '0' }, { fixed: '2.0.0' }]),
  // A second record of CVE-2021-23337: one flaw, merged with the GHSA record, not counted twice.
  { id: 'TEST-LODASH-1', aliases: ['CVE-2021-23337'], ecosystem: 'npm', name: 'lodash', events: [{ introduced: '0' }, { fixed: '4.17.21' }] },
  // Decoys: withdrawn, and the same package name in another ecosystem.
  { id: 'TEST-WITHDRAWN-1', withdrawn: '2025-02-01T00:00:00Z', ecosystem: 'npm', name: 'lodash', events: [{ introduced: '0' }] },
  { id: 'TEST-PYPI-LODASH', ecosystem: 'PyPI', name: 'lodash', events: [{ introduced: '0' }] },
  {
    id: 'GHSA-jfh8-c2jp-5v3q',
    aliases: ['CVE-2021-44228'],
    ecosystem: 'Maven',
    name: 'org.apache.logging.log4j:log4j-core',
    events: [{ introduced: '2.0-beta9' }, { fixed: '2.12.2' }, { introduced: '2.13.0' }, { fixed: '2.15.0' }],
    severity: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H',
  },
  {
    id: 'GHSA-7rjr-3q55-vv33',
    aliases: ['CVE-2021-45046'],
    ecosystem: 'Maven',
    name: 'org.apache.logging.log4j:log4j-core',
    events: [{ introduced: '2.0-beta9' }, { fixed: '2.12.2' }, { introduced: '2.13.0' }, { fixed: '2.16.0' }],
  },
];

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
  await refreshVulndb(d.db, SNAPSHOTS);
  await refreshVulndb(d.db, feedFolder(RECORDS));
});
after(() => d.drop());

async function productWith(sbom: string | Buffer, identifier = 'gateway') {
  const c = await makeCompany(d.db);
  await upsertProduct(d.db, ctx, c.id, { name: identifier, identifier });
  await pushSbom(d.db, ctx, c.id, identifier, sbom);
  return c;
}
/** `vulnerability component@version -> fixed`, sorted, for exact set comparison. */
async function matchesOf(companyId: string, filter: Parameters<typeof listKnownVulns>[2] = {}) {
  const page = await listKnownVulns(d.db, companyId, filter, { limit: 1000 });
  return page.items.map((m) => `${m.vulnerability} ${m.component.name}@${m.component.version} -> ${m.fixedVersion}`).sort();
}

const PY_GO_MAVEN = [
  { name: 'urllib3', version: '1.26.4', purl: 'pkg:pypi/urllib3@1.26.4' },
  { name: 'gin', version: 'v1.9.0', purl: 'pkg:golang/github.com/gin-gonic/gin@v1.9.0' },
  { name: 'log4j-core', version: '2.14.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' },
  { name: 'log4j-api', version: '2.14.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-api@2.14.1' },
  { name: 'lwip', version: '2.2.0', purl: 'pkg:generic/lwip@2.2.0' },
  { name: 'vendored-blob', version: '1', purl: null },
];
// urllib3 1.26.4: PYSEC-2021-108 [0,1.26.5), PYSEC-2023-192 [0,1.26.17), PYSEC-2023-212 [0,1.26.18);
// PYSEC-2021-59 [1.26.0,1.26.4) stops at 1.26.4. gin v1.9.0: GO-2023-1737 [pseudo of 1.3.1, 1.9.1).
// log4j-core 2.14.1: both Maven records' second range.
const PY_GO_MAVEN_EXPECTED = [
  'CVE-2021-33503 urllib3@1.26.4 -> 1.26.5',
  'CVE-2021-44228 log4j-core@2.14.1 -> 2.15.0',
  'CVE-2021-45046 log4j-core@2.14.1 -> 2.16.0',
  'CVE-2023-29401 gin@v1.9.0 -> v1.9.1',
  'CVE-2023-43804 urllib3@1.26.4 -> 1.26.17',
  'CVE-2023-45803 urllib3@1.26.4 -> 1.26.18',
];

describe('known vulnerabilities of pushed SBOMs', () => {
  it('an SBOM made by `npm sbom` for a project with old dependencies yields exactly its advisories', async () => {
    const c = await productWith(NPM_SBOM);
    assert.deepEqual(await matchesOf(c.id), [
      'CVE-2020-28500 lodash@4.17.15 -> 4.17.21',
      'CVE-2020-7598 minimist@1.2.0 -> 1.2.3',
      'CVE-2020-8203 lodash@4.17.15 -> 4.17.19',
      'CVE-2021-23337 lodash@4.17.15 -> 4.17.21',
      'CVE-2021-44906 minimist@1.2.0 -> 1.2.6',
      'CVE-2023-45133 @babel/traverse@7.22.0 -> 7.23.2',
    ]);
    const [merged] = (await listKnownVulns(d.db, c.id, { vulnerability: 'TEST-LODASH-1' })).items;
    assert.deepEqual(merged?.ids, ['CVE-2021-23337', 'GHSA-35jh-r3h4-6jhm', 'TEST-LODASH-1']);
  });

  it('SPDX and CycloneDX SBOMs naming Python, Go and Maven components yield the same exact set', async () => {
    const spdx = await productWith(spdxOf(PY_GO_MAVEN));
    const cdx = await productWith(cycloneDxOf(PY_GO_MAVEN));
    assert.deepEqual(await matchesOf(spdx.id), PY_GO_MAVEN_EXPECTED);
    assert.deepEqual(await matchesOf(cdx.id), PY_GO_MAVEN_EXPECTED);
    const page = await listKnownVulns(d.db, spdx.id, { product: 'gateway' });
    assert.deepEqual(
      { ...page.coverage, sbomId: undefined, matchedAt: undefined },
      {
        sbomId: undefined,
        matchedAt: undefined,
        components: 6,
        matchable: 4,
        unmatched: { 'unsupported-ecosystem': 1, 'no-purl': 1 },
      },
    );
    // KEV first (both log4j CVEs are in the snapshot catalog), then by CVSS.
    assert.deepEqual(
      page.items.slice(0, 2).map((m) => m.vulnerability),
      ['CVE-2021-44228', 'CVE-2021-45046'],
    );
    assert.deepEqual(page.items[0]!.kev, { dateAdded: '2021-12-10', dueDate: '2021-12-24', knownRansomwareCampaignUse: 'Known' });
    assert.equal(page.items[0]!.cvss?.score, 10);
    assert.equal(page.items.find((m) => m.vulnerability === 'CVE-2023-29401')!.kev, null);
  });

  it('boundaries, withdrawn records and unknown versions stay out', async () => {
    // requests 2.3.0: PYSEC-2014-13/14 are fixed at 2.3.0; 2015-17 [2.1.0,2.6.0), 2018-28 [0,2.20.0),
    // 2023-74 introduced at 2.3.0. PyYAML 5.1: PYSEC-2018-49 fixed at 5.1; 2020-176, 2020-96 introduced
    // at 5.1; 2021-142 [0,5.4). x/text v0.3.7: GO-2021-0113 fixed at 0.3.7. log4j-core 2.12.2 is a
    // fixed version of both Maven records. arrayfire's only record is withdrawn.
    const c = await productWith(
      cycloneDxOf([
        { name: 'requests', version: '2.3.0', purl: 'pkg:pypi/requests@2.3.0' },
        { name: 'PyYAML', version: '5.1', purl: 'pkg:pypi/PyYAML@5.1' },
        { name: 'text', version: 'v0.3.7', purl: 'pkg:golang/golang.org/x/text@v0.3.7' },
        { name: 'log4j-core', version: '2.12.2', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.12.2' },
        { name: 'arrayfire', version: '3.5.0', purl: 'pkg:pypi/arrayfire@3.5.0' },
        { name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21' },
      ]),
    );
    assert.deepEqual(await matchesOf(c.id), [
      'CVE-2015-2296 requests@2.3.0 -> 2.6.0',
      'CVE-2018-18074 requests@2.3.0 -> 2.20.0',
      'CVE-2019-20477 PyYAML@5.1 -> 5.2b1',
      'CVE-2020-14343 PyYAML@5.1 -> 5.4',
      'CVE-2020-1747 PyYAML@5.1 -> 5.3.1',
      'CVE-2022-32149 text@v0.3.7 -> v0.3.8',
      'CVE-2023-32681 requests@2.3.0 -> 2.31.0',
      'CVE-2026-56852 text@v0.3.7 -> v0.39.0',
    ]);
    // PYSEC records carry details but no summary: the first sentence of the details stands in.
    const [requests] = (await listKnownVulns(d.db, c.id, { vulnerability: 'CVE-2015-2296' })).items;
    assert.match(
      requests?.summary ?? '',
      /^The resolve_redirects function in sessions\.py in requests 2\.1\.0 through 2\.5\.3 allows remote attackers to conduct session fixation attacks/,
    );
    assert.ok((requests?.summary ?? '').length <= 201);
  });

  it('a newer SBOM resolves what it no longer contains and keeps the first-seen time of the rest', async () => {
    const c = await productWith(spdxOf(PY_GO_MAVEN));
    const before = (await listKnownVulns(d.db, c.id, {}, { limit: 100 })).items;
    const upgraded = PY_GO_MAVEN.map((x) =>
      x.name === 'log4j-core' ? { ...x, version: '2.17.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.17.1' } : x,
    );
    await pushSbom(d.db, ctx, c.id, 'gateway', spdxOf(upgraded));
    assert.deepEqual(
      await matchesOf(c.id),
      PY_GO_MAVEN_EXPECTED.filter((m) => !m.includes('log4j')),
    );
    assert.deepEqual(
      (await matchesOf(c.id, { state: 'resolved' })).sort(),
      PY_GO_MAVEN_EXPECTED.filter((m) => m.includes('log4j')),
    );
    const after = (await listKnownVulns(d.db, c.id)).items;
    for (const m of after) assert.equal(m.firstSeenAt, before.find((b) => b.vulnerability === m.vulnerability)?.firstSeenAt);
    const resolved = (await listKnownVulns(d.db, c.id, { state: 'resolved' })).items;
    assert.ok(resolved.every((m) => m.state === 'resolved' && m.resolvedAt !== null));
  });

  it('announces new matches in one event per product, and none for a push that finds nothing new', async () => {
    const c = await productWith(cycloneDxOf(PY_GO_MAVEN));
    const events = () =>
      d.db
        .select()
        .from(outboxEvents)
        .where(and(eq(outboxEvents.companyId, c.id), eq(outboxEvents.type, 'vulnerability.matched')));
    const [first, ...rest] = await events();
    assert.equal(rest.length, 0);
    const data = (first!.payload as unknown as { data: { total: number; productIdentifier: string; matches: { vulnerability: string }[] } }).data;
    assert.equal(data.total, 6);
    assert.equal(data.productIdentifier, 'gateway');
    assert.deepEqual(data.matches.map((m) => m.vulnerability).sort(), PY_GO_MAVEN_EXPECTED.map((m) => m.split(' ')[0]).sort());
    await pushSbom(d.db, ctx, c.id, 'gateway', cycloneDxOf(PY_GO_MAVEN));
    assert.equal((await events()).length, 1);
  });

  it('a company sees only its own matches', async () => {
    const a = await productWith(cycloneDxOf(PY_GO_MAVEN));
    const b = await makeCompany(d.db);
    assert.deepEqual((await listKnownVulns(d.db, b.id)).items, []);
    await assert.rejects(listKnownVulns(d.db, b.id, { product: 'gateway' }), /not found/);
    assert.equal((await listKnownVulns(d.db, a.id)).items.length, 6);
  });
});

describe('feed updates', () => {
  it('a re-import of the same files changes nothing and reads nothing', async () => {
    const again = await refreshVulndb(d.db, SNAPSHOTS);
    assert.ok(again.files.every((f) => f.unchanged === true || f.skipped !== undefined));
    const forced = await refreshVulndb(d.db, `${SNAPSHOTS}osv`, { force: true });
    assert.deepEqual(
      forced.files.map((f) => f.applied),
      [0, 0],
    );
    assert.equal(forced.changedPackages.size, 0);
  });

  it('re-matches stored SBOMs when advisories change: new, withdrawn and stale records', async () => {
    const c = await productWith(cycloneDxOf([{ name: 'left-pad', version: '1.1.0', purl: 'pkg:npm/left-pad@1.1.0' }]));
    assert.deepEqual(await matchesOf(c.id), []);
    const folder = feedFolder([
      {
        id: 'TEST-LEFTPAD-1',
        aliases: ['CVE-2099-0001'],
        ecosystem: 'npm',
        name: 'left-pad',
        events: [{ introduced: '1.0.0' }, { fixed: '1.3.0' }],
        modified: '2025-06-01T00:00:00Z',
      },
    ]);
    const r = await refreshVulndb(d.db, folder);
    assert.deepEqual([...r.changedPackages], ['npm/left-pad']);
    assert.deepEqual(await matchesOf(c.id), ['CVE-2099-0001 left-pad@1.1.0 -> 1.3.0']);
    const matched = await d.db
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, c.id), eq(outboxEvents.type, 'vulnerability.matched')));
    assert.equal(matched.length, 1);

    // An older copy of the record (modified earlier) never overwrites the newer one.
    writeRecords(folder, [{ id: 'TEST-LEFTPAD-1', ecosystem: 'npm', name: 'left-pad', events: [{ introduced: '0' }], modified: '2025-01-01T00:00:00Z' }]);
    const stale = await refreshVulndb(d.db, folder);
    assert.equal(stale.files[0]!.applied, 0);
    assert.deepEqual(await matchesOf(c.id), ['CVE-2099-0001 left-pad@1.1.0 -> 1.3.0']);

    // Withdrawn: the match resolves.
    writeRecords(folder, [
      {
        id: 'TEST-LEFTPAD-1',
        aliases: ['CVE-2099-0001'],
        ecosystem: 'npm',
        name: 'left-pad',
        events: [{ introduced: '1.0.0' }, { fixed: '1.3.0' }],
        modified: '2025-07-01T00:00:00Z',
        withdrawn: '2025-07-01T00:00:00Z',
      },
    ]);
    const withdrawn = await refreshVulndb(d.db, folder);
    assert.equal(withdrawn.files[0]!.withdrawn, 1);
    assert.deepEqual(await matchesOf(c.id), []);
    assert.deepEqual(await matchesOf(c.id, { state: 'resolved' }), ['CVE-2099-0001 left-pad@1.1.0 -> 1.3.0']);
  });

  it('a KEV update announces the matched vulnerabilities that entered the catalog, to their companies only', async () => {
    const c = await productWith(cycloneDxOf(PY_GO_MAVEN));
    const other = await productWith(cycloneDxOf([{ name: 'requests', version: '2.3.0', purl: 'pkg:pypi/requests@2.3.0' }]));
    const catalog = JSON.parse(readFileSync(`${SNAPSHOTS}kev/known_exploited_vulnerabilities.json`, 'utf8')) as {
      catalogVersion: string;
      vulnerabilities: Record<string, unknown>[];
    };
    catalog.catalogVersion = '2026.11.25';
    catalog.vulnerabilities.push({
      cveID: 'CVE-2023-43804',
      vendorProject: 'urllib3',
      product: 'urllib3',
      vulnerabilityName: 'urllib3 Cookie Header Leak (test entry)',
      dateAdded: '2026-11-25',
      shortDescription: 'test',
      requiredAction: 'Apply updates.',
      dueDate: '2026-12-16',
      knownRansomwareCampaignUse: 'Unknown',
      notes: '',
      cwes: [],
    });
    const dir = mkdtempSync(join(tmpdir(), 'cradle-kev-'));
    writeFileSync(join(dir, 'known_exploited_vulnerabilities.json'), JSON.stringify(catalog));
    const r = await refreshVulndb(d.db, dir);
    assert.deepEqual(r.kevAdded, ['CVE-2023-43804']);
    const kevEvents = (id: string) =>
      d.db
        .select()
        .from(outboxEvents)
        .where(and(eq(outboxEvents.companyId, id), eq(outboxEvents.type, 'vulnerability.kev_added')));
    const [event] = await kevEvents(c.id);
    assert.deepEqual((event!.payload as { data: unknown }).data, {
      productIdentifier: 'gateway',
      matches: [{ vulnerability: 'CVE-2023-43804', cves: ['CVE-2023-43804'], component: 'urllib3', version: '1.26.4' }],
    });
    assert.equal((await kevEvents(other.id)).length, 0);
    const [top] = (await listKnownVulns(d.db, c.id, { kev: 'true', minCvss: 8 })).items;
    assert.equal(top?.vulnerability, 'CVE-2021-44228');
  });

  it('EPSS scores attach through the CVE alias and order the list', async () => {
    // requests 2.3.0: CVE-2015-2296, CVE-2018-18074, CVE-2023-32681 (none in KEV).
    const c = await productWith(cycloneDxOf([{ name: 'requests', version: '2.3.0', purl: 'pkg:pypi/requests@2.3.0' }]));
    const dir = mkdtempSync(join(tmpdir(), 'cradle-epss-'));
    writeFileSync(
      join(dir, 'epss_scores-2026-11-24.csv'),
      '#model_version:v2025.03.14,score_date:2026-11-24T00:00:00+0000\ncve,epss,percentile\nCVE-2023-32681,0.91,0.99\nCVE-2015-2296,0.02,0.6\nnot-a-cve,1,1\n',
    );
    const r = await refreshVulndb(d.db, dir);
    assert.deepEqual([r.files[0]!.applied, r.files[0]!.rejected, r.files[0]!.version], [2, 1, '2026-11-24']);
    const items = (await listKnownVulns(d.db, c.id)).items;
    assert.deepEqual(
      items.map((m) => [m.vulnerability, m.epss?.score ?? null]),
      [
        ['CVE-2023-32681', 0.91],
        ['CVE-2015-2296', 0.02],
        ['CVE-2018-18074', null],
      ],
    );
    assert.deepEqual(items[0]!.epss, { score: 0.91, percentile: 0.99, date: '2026-11-24' });
    assert.deepEqual(
      (await listKnownVulns(d.db, c.id, { minEpss: 0.5 })).items.map((m) => m.vulnerability),
      ['CVE-2023-32681'],
    );
  });
});
