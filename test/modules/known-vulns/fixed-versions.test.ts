// The fixed version offered must hold (issue 37): on every match of the snapshot feeds
// (../shared/data/vulndb and vulndb-extra) with the SBOMs the known-vulnerability tests push, plus the
// cases the review named, an SBOM upgraded to the offered versions no longer has the flaw. Severity
// comes from any record of the flaw's alias group, with the record named.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import { listKnownVulns } from '../../../src/modules/known-vulns/list-known-vulns.js';
import { refreshVulndb } from '../../../src/modules/known-vulns/refresh-vulndb.js';
import type { KnownVuln } from '../../../src/modules/known-vulns/known-vulns.schemas.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';
import { type Component, cycloneDxOf, feedFolder } from '../../helpers/vulndb.js';

const DATA = new URL('../../../../shared/data/', import.meta.url).pathname;
const NPM_SBOM = JSON.parse(readFileSync(new URL('../../fixtures/vulndb/npm-sbom-legacy-gateway.cdx.json', import.meta.url), 'utf8')) as {
  components: { name: string; version: string; purl?: string }[];
};
const ctx = operatorContext();

const c = (name: string, version: string, purl: string): Component => ({ name, version, purl });
// The components the known-vulnerability tests push, and the cases issue 37 named.
const COMPONENTS: Component[] = [
  ...NPM_SBOM.components.map((x) => c(x.name, x.version, x.purl!)),
  c('urllib3', '1.26.4', 'pkg:pypi/urllib3@1.26.4'),
  c('PyYAML', '5.1', 'pkg:pypi/PyYAML@5.1'),
  c('arrayfire', '3.5.0', 'pkg:pypi/arrayfire@3.5.0'),
  c('gin', 'v1.9.0', 'pkg:golang/github.com/gin-gonic/gin@v1.9.0'),
  c('log4j-core', '2.14.1', 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1'),
  c('left-pad', '1.3.0', 'pkg:npm/left-pad@1.3.0'),
  c('drupal/core', '11.0.0', 'pkg:composer/drupal/core@11.0.0'),
  c('stdlib', 'go1.20', 'pkg:golang/stdlib@go1.20'),
  c('pyspark', '3.0.0', 'pkg:pypi/pyspark@3.0.0'),
  c('jackson-databind', '2.12.6', 'pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.12.6'),
  c('snakeyaml', '1.33', 'pkg:maven/org.yaml/snakeyaml@1.33'),
  c('commons-text', '1.9', 'pkg:maven/org.apache.commons/commons-text@1.9'),
  c('semver', '5.7.1', 'pkg:npm/semver@5.7.1'),
  c('Newtonsoft.Json', '12.0.3', 'pkg:nuget/Newtonsoft.Json@12.0.3'),
  c('smallvec', '1.6.0', 'pkg:cargo/smallvec@1.6.0'),
];

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
  await refreshVulndb(d.db, `${DATA}vulndb`);
  await refreshVulndb(d.db, `${DATA}vulndb-extra/osv`);
  // The GHSA record of CVE-2022-33891 names the Maven artifact, not pyspark, and carries the CVSS
  // vector the PYSEC record lacks (as github/advisory-database states it).
  await refreshVulndb(
    d.db,
    feedFolder([
      {
        id: 'GHSA-4x9r-j582-cgr8',
        aliases: ['CVE-2022-33891'],
        ecosystem: 'Maven',
        name: 'org.apache.spark:spark-core_2.12',
        events: [{ introduced: '0' }, { fixed: '3.1.3' }],
        severity: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      },
    ]),
  );
});
after(() => d.drop());

async function matchesAfterPush(identifier: string, components: Component[]): Promise<{ company: string; items: KnownVuln[] }> {
  const co = await makeCompany(d.db);
  await upsertProduct(d.db, ctx, co.id, { name: identifier, identifier });
  await pushSbom(d.db, ctx, co.id, identifier, cycloneDxOf(components));
  return { company: co.id, items: (await listKnownVulns(d.db, co.id, {}, { limit: 1000 })).items };
}

/** The purl with its version replaced. */
const withVersion = (purl: string, version: string) => purl.replace(/@[^@?#]*$/, `@${version}`);

describe('the fixed version offered', () => {
  it('is the first version that no record of the flaw marks affected, written as the ecosystem writes it', async () => {
    const { items } = await matchesAfterPush('gateway', COMPONENTS);
    const fix = (id: string, component: string) => items.find((m) => m.ids.includes(id) && m.component.name === component)?.fixedVersion;
    // drupal/core 11.0.0: 11.1.0 and 11.2.0 fix one interval each and sit in the next.
    assert.equal(fix('DRUPAL-CORE-2026-005', 'drupal/core'), '11.2.14');
    // go1.20: 1.20.11 is itself in the record's second entry.
    assert.equal(fix('GO-2023-2185', 'stdlib'), 'go1.20.12');
    assert.equal(fix('GO-2023-1737', 'gin'), 'v1.9.1');
    // pyspark 3.0.0: 3.1.1 is affected again by a later range of the same record.
    assert.equal(fix('PYSEC-2022-236', 'pyspark'), '3.1.3');
    assert.equal(fix('PYSEC-2023-72', 'pyspark'), '3.2.2');
    assert.ok(items.length > 30, `the data yields many matches (${items.length})`);
  });

  it('makes every match go away when the SBOM is upgraded to it', async () => {
    const { items } = await matchesAfterPush('gateway', COMPONENTS);
    const fixable = items.filter((m) => m.fixedVersion !== null);
    assert.ok(fixable.length > 30);
    // One component per match, at the version offered for it (an SBOM may name a package at several versions).
    const upgraded = fixable.map((m) => c(m.component.name, m.fixedVersion!, withVersion(m.component.purl, m.fixedVersion!)));
    const after = await matchesAfterPush('gateway', upgraded);
    const still = fixable.filter((m) =>
      after.items.some((a) => a.component.purl === withVersion(m.component.purl, m.fixedVersion!) && a.ids.some((id) => m.ids.includes(id))),
    );
    assert.deepEqual(
      still.map((m) => `${m.vulnerability} ${m.component.name}@${m.component.version} -> ${m.fixedVersion}`),
      [],
    );
  });

  it('takes severity from any record of the alias group and names it', async () => {
    const { items } = await matchesAfterPush('spark', [c('pyspark', '3.0.0', 'pkg:pypi/pyspark@3.0.0')]);
    const m = items.find((x) => x.ids.includes('PYSEC-2022-236'))!;
    assert.deepEqual(m.cvss, { score: 9.8, vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', source: 'GHSA-4x9r-j582-cgr8' });
    // The minimum-CVSS filter now finds it.
    const high = await listKnownVulns(d.db, (await matchesAfterPush('spark', [c('pyspark', '3.0.0', 'pkg:pypi/pyspark@3.0.0')])).company, { minCvss: 9 });
    assert.ok(high.items.some((x) => x.ids.includes('PYSEC-2022-236')));
  });
});
