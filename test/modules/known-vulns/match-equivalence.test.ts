// The matcher's reads after ADR 0029 answer what the statements they replaced answered, on the real
// snapshots (OSV Go and PyPI, CISA KEV) plus records whose aliases cross ecosystems: the advisory
// entries of an SBOM's packages (now read as one JSON value) and the records of each flaw's alias
// group (now by primary key and one alias probe per id, no longer `id = any(..) or aliases && ..`).
// The former statements are written out here as the reference; the whole match of the SBOM must
// also keep every flaw's summary, CVSS, fix and KEV mark as the reference reads give them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { migrationsFolder } from '../../../src/db/client.js';
import { selectRows } from '../../../src/db/sql-rows.js';
import { param } from '../../../src/kernel/evidence-store.js';
import {
  aliasGroupRecords,
  type ComponentIn,
  type EntryRow,
  evaluateComponents,
  findKnownVulns,
  loadAffected,
  packageKeysOf,
  packagesOf,
} from '../../../src/modules/known-vulns/find-known-vulns.js';
import { refreshVulndb } from '../../../src/modules/known-vulns/refresh-vulndb.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { feedFolder, type TestRecord } from '../../helpers/vulndb.js';

const SNAPSHOTS = new URL('../../../../shared/data/vulndb/', import.meta.url).pathname;
const NPM_SBOM = JSON.parse(readFileSync(new URL('../../fixtures/vulndb/npm-sbom-legacy-gateway.cdx.json', import.meta.url), 'utf8')) as {
  components: { name: string; version: string; purl?: string }[];
};
const V31 = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const npm = (id: string, name: string, aliases: string[], events: TestRecord['events'], severity?: string): TestRecord => ({
  id,
  aliases,
  ecosystem: 'npm',
  name,
  events,
  ...(severity ? { severity } : {}),
});
const RECORDS: TestRecord[] = [
  npm('GHSA-35jh-r3h4-6jhm', 'lodash', ['CVE-2021-23337'], [{ introduced: '0' }, { fixed: '4.17.21' }]),
  npm('GHSA-p6mc-m468-83gw', 'lodash', ['CVE-2020-8203'], [{ introduced: '3.7.0' }, { fixed: '4.17.19' }]),
  npm('GHSA-vh95-rmgr-6w4m', 'minimist', ['CVE-2020-7598'], [{ introduced: '0' }, { fixed: '0.2.1' }, { introduced: '1.0.0' }, { fixed: '1.2.3' }]),
  // The same CVE in another ecosystem's record, which alone carries a vector: it scores the npm flaw.
  { id: 'TEST-PYPI-23337', aliases: ['CVE-2021-23337'], ecosystem: 'PyPI', name: 'not-lodash', events: [{ introduced: '0' }], severity: V31 },
  // A record named by a matching record's alias (its id is the alias), with its own vector.
  npm(
    'GHSA-xvch-5gv4-984h',
    'minimist',
    ['CVE-2021-44906', 'TEST-ALIAS-TARGET'],
    [{ introduced: '0' }, { fixed: '0.2.4' }, { introduced: '1.0.0' }, { fixed: '1.2.6' }],
  ),
  {
    id: 'TEST-ALIAS-TARGET',
    ecosystem: 'Go',
    name: 'example.com/unrelated',
    events: [{ introduced: '0' }],
    severity: 'CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N',
  },
  {
    id: 'GHSA-jfh8-c2jp-5v3q',
    aliases: ['CVE-2021-44228'],
    ecosystem: 'Maven',
    name: 'org.apache.logging.log4j:log4j-core',
    events: [{ introduced: '2.0-beta9' }, { fixed: '2.12.2' }, { introduced: '2.13.0' }, { fixed: '2.15.0' }],
  },
  // Withdrawn, naming a matched CVE: left out of the group by both reads.
  {
    id: 'TEST-WITHDRAWN-8203',
    withdrawn: '2025-02-01T00:00:00Z',
    aliases: ['CVE-2020-8203'],
    ecosystem: 'npm',
    name: 'lodash',
    events: [{ introduced: '0' }],
    severity: V31,
  },
];
const COMPONENTS: ComponentIn[] = [
  ...NPM_SBOM.components.map((c) => ({ name: c.name, version: c.version, purl: c.purl ?? null })),
  { name: 'urllib3', version: '1.26.4', purl: 'pkg:pypi/urllib3@1.26.4' },
  { name: 'requests', version: '2.25.0', purl: 'pkg:pypi/requests@2.25.0' },
  { name: 'gin', version: 'v1.9.0', purl: 'pkg:golang/github.com/gin-gonic/gin@v1.9.0' },
  { name: 'golang.org/x/net', version: 'v0.7.0', purl: 'pkg:golang/golang.org/x/net@v0.7.0' },
  { name: 'log4j-core', version: '2.14.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' },
];

/** The entry read the matcher used before ADR 0029: one row object per entry from the driver. */
async function formerEntries(db: TestDatabase['db'], keys: string[]): Promise<Map<string, EntryRow[]>> {
  const rows = await selectRows<EntryRow>(
    db,
    sql`select a.record_id, a.package_key, a.type, a.release, a.ranges, a.versions, r.aliases
        from vulndb_affected a join vulndb_records r on r.id = a.record_id
        where a.package_key = any(${param(keys)}::text[]) and r.withdrawn is null`,
  );
  const byPackage = new Map<string, EntryRow[]>();
  for (const r of rows) byPackage.set(r.package_key, [...(byPackage.get(r.package_key) ?? []), r]);
  return byPackage;
}

/** The alias-group read before ADR 0029. */
const formerGroup = (db: TestDatabase['db'], ids: string[]) =>
  selectRows<{ id: string }>(
    db,
    sql`select id, aliases, coalesce(nullif(summary, ''), left(details, 400)) as summary, severity from vulndb_records
        where (id = any(${param(ids)}::text[]) or aliases && ${param(ids)}::text[]) and withdrawn is null`,
  );

const byRecord = (a: { record_id: string }, b: { record_id: string }) => a.record_id.localeCompare(b.record_id);
const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
  await refreshVulndb(d.db, SNAPSHOTS);
  await refreshVulndb(d.db, feedFolder(RECORDS));
});
after(() => d.drop());

describe('the matcher reads what the former statements read', () => {
  const packages = packagesOf(COMPONENTS);
  const keys = packageKeysOf(packages);

  it('reads the same advisory entries of every package', async () => {
    const now = await loadAffected(d.db, keys);
    const former = await formerEntries(d.db, keys);
    assert.ok(former.size >= 6, `the SBOM's packages have advisories (${former.size})`);
    assert.deepEqual([...now.keys()].sort(), [...former.keys()].sort());
    for (const [key, rows] of former) assert.deepEqual([...now.get(key)!].sort(byRecord), [...rows].sort(byRecord), key);
  });

  it('reads the same alias-group records for the flaws found, and the match keeps every described field', async () => {
    const { found } = await findKnownVulns(d.db, COMPONENTS, packages);
    assert.ok(found.length >= 8, `the SBOM has known vulnerabilities (${found.length})`);
    const ids = [...new Set(found.flatMap((f) => f.vulnIds))];
    assert.deepEqual((await aliasGroupRecords(d.db, ids)).sort(byId), (await formerGroup(d.db, ids)).sort(byId));

    // The match described from the former reads: the same entries evaluated, then each flaw's group
    // from the former statement, one flaw at a time (so no batching can hide a difference).
    const reference = evaluateComponents(COMPONENTS, packages, await formerEntries(d.db, keys)).found;
    assert.deepEqual(
      found.map((f) => `${f.vulnKey} ${f.componentName}@${f.componentVersion} -> ${f.fixedVersion}`),
      reference.map((f) => `${f.vulnKey} ${f.componentName}@${f.componentVersion} -> ${f.fixedVersion}`),
    );
    for (const f of reference) {
      const group = (await formerGroup(d.db, f.vulnIds)) as unknown as { id: string; summary: string | null; severity: { score: string }[] }[];
      const mine = found.find((x) => x.vulnKey === f.vulnKey && x.componentVersion === f.componentVersion && x.packageKey === f.packageKey)!;
      // The vector must be one of the group's as the former read found it, and the source its record.
      if (mine.cvssVector !== null)
        assert.ok(
          group.some((r) => r.id === mine.cvssSource && r.severity.some((s) => s.score === mine.cvssVector)),
          f.vulnKey,
        );
      else
        assert.ok(
          group.every((r) => r.severity.length === 0 || r.severity.every((s) => !/^CVSS:3|^CVSS:4/.test(s.score))),
          f.vulnKey,
        );
    }
    // The cross-ecosystem record scores the npm flaw; the withdrawn one never does.
    const lodash = found.find((f) => f.vulnKey === 'CVE-2021-23337')!;
    assert.deepEqual([lodash.cvssScore, lodash.cvssSource], [9.8, 'TEST-PYPI-23337']);
    const minimist = found.find((f) => f.vulnKey === 'CVE-2021-44906')!;
    assert.equal(minimist.cvssSource, 'TEST-ALIAS-TARGET');
    assert.equal(found.find((f) => f.vulnKey === 'CVE-2020-8203')?.cvssSource, null);
    assert.equal(found.find((f) => f.vulnKey === 'CVE-2021-44228')?.inKev, true);
  });

  // ADR 0029 addendum: each entry carries its record's aliases (migration 0040). The release before
  // it, still running during a rolling upgrade, writes entries without them; the migration fills a
  // store imported before it, and drops any entry a withdrawn record kept.
  it("reads the record's aliases for an entry written without them, and migration 0040 fills them", async () => {
    const count = async (where: ReturnType<typeof sql>) =>
      (await selectRows<{ n: number }>(d.db, sql`select count(*)::int as n from vulndb_affected where ${where}`))[0]!.n;
    const rewritten = await count(sql`package_key in ('npm/lodash', 'npm/minimist')`);
    assert.ok(rewritten >= 4, `the lodash and minimist entries are stored (${rewritten})`);
    await d.db.execute(sql`update vulndb_affected set aliases = null where package_key in ('npm/lodash', 'npm/minimist')`);
    // An entry the withdrawn record should not have, as a store from before might hold.
    await d.db.execute(sql`insert into vulndb_affected (record_id, ordinal, package_key, type, release, ranges, versions)
      values ('TEST-WITHDRAWN-8203', 0, 'npm/not-in-the-sbom', 'npm', null, '[]'::jsonb, '{}')`);

    const former = await formerEntries(d.db, keys);
    const now = await loadAffected(d.db, keys);
    for (const [key, rows] of former) assert.deepEqual([...now.get(key)!].sort(byRecord), [...rows].sort(byRecord), key);
    assert.deepEqual(now.get('npm/minimist')!.find((r) => r.record_id === 'GHSA-xvch-5gv4-984h')?.aliases, ['CVE-2021-44906', 'TEST-ALIAS-TARGET']);

    const migration = readFileSync(`${migrationsFolder}/0040_affaliases.sql`, 'utf8').split('--> statement-breakpoint');
    assert.match(migration[0]!, /ADD COLUMN "aliases" text\[\];/);
    for (const statement of migration.slice(1)) await d.db.execute(sql.raw(statement));
    assert.equal(await count(sql`aliases is null`), 0);
    assert.equal(await count(sql`record_id = 'TEST-WITHDRAWN-8203'`), 0);
    const filled = await selectRows<{ record_id: string; aliases: string[] }>(
      d.db,
      sql`select record_id, aliases from vulndb_affected where package_key = 'npm/minimist' order by record_id, ordinal`,
    );
    assert.deepEqual(filled, [
      { record_id: 'GHSA-vh95-rmgr-6w4m', aliases: ['CVE-2020-7598'] },
      { record_id: 'GHSA-xvch-5gv4-984h', aliases: ['CVE-2021-44906', 'TEST-ALIAS-TARGET'] },
    ]);
    const after = await loadAffected(d.db, keys);
    for (const [key, rows] of former) assert.deepEqual([...after.get(key)!].sort(byRecord), [...rows].sort(byRecord), key);
  });
});
