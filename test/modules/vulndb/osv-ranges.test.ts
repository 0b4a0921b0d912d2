// The OSV evaluation rules, on records of the snapshots in ../shared/data/vulndb/ and on small
// records of our own; every expected answer was derived by hand from the record it uses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AffectedEntry, evaluateAffected } from '../../../src/modules/vulndb/affected.js';
import { componentPackage, osvPackage } from '../../../src/modules/vulndb/ecosystems.js';
import { zipEntries } from '../../../src/modules/vulndb/feed-archive.js';
import { readOsvRecord, type StoredRecord } from '../../../src/modules/vulndb/osv-record.js';

const SNAPSHOTS = new URL('../../../../shared/data/vulndb/', import.meta.url).pathname;

async function snapshotRecords(ecosystem: string, ids: string[]): Promise<Map<string, StoredRecord>> {
  const wanted = new Set(ids.map((id) => `${id}.json`));
  const out = new Map<string, StoredRecord>();
  for await (const e of zipEntries(`${SNAPSHOTS}osv/${ecosystem}/all.zip`)) {
    if (!wanted.has(e.name) || !('bytes' in e)) continue;
    const r = readOsvRecord(e.bytes);
    assert.ok(r.ok, e.name);
    out.set(r.record.id, r.record);
  }
  assert.equal(out.size, ids.length, 'every record used is in the snapshot');
  return out;
}

const entryOf = (r: StoredRecord, i = 0): AffectedEntry => ({ type: r.affected[i]!.type, ranges: r.affected[i]!.ranges, versions: r.affected[i]!.versions });
const state = (version: string, entry: AffectedEntry) => evaluateAffected(version, entry);

describe('OSV range evaluation', () => {
  it('fixed is exclusive and introduced inclusive (PYSEC-2021-59: urllib3 introduced 1.26.0, fixed 1.26.4)', async () => {
    const r = (await snapshotRecords('PyPI', ['PYSEC-2021-59'])).get('PYSEC-2021-59')!;
    const e = entryOf(r);
    assert.deepEqual(state('1.26.0', e), { state: 'affected', fixed: '1.26.4' });
    assert.deepEqual(state('1.26.3', e), { state: 'affected', fixed: '1.26.4' });
    assert.deepEqual(state('1.26.4', e), { state: 'clear' });
    assert.deepEqual(state('1.25.11', e), { state: 'clear' });
  });

  it('last_affected is inclusive (PYSEC-2022-42969: py introduced 0, last_affected 1.11.0)', async () => {
    const r = (await snapshotRecords('PyPI', ['PYSEC-2022-42969'])).get('PYSEC-2022-42969')!;
    assert.deepEqual(state('1.11.0', entryOf(r)), { state: 'affected', fixed: null });
    assert.deepEqual(state('1.11.1', entryOf(r)), { state: 'clear' });
  });

  it('two ranges in one event list (PYSEC-2023-192: urllib3 2.0.0..2.0.6 and 0..1.26.17)', async () => {
    const e = entryOf((await snapshotRecords('PyPI', ['PYSEC-2023-192'])).get('PYSEC-2023-192')!);
    assert.deepEqual(state('1.26.16', e), { state: 'affected', fixed: '1.26.17' });
    assert.deepEqual(state('1.26.17', e), { state: 'clear' });
    assert.deepEqual(state('2.0.5', e), { state: 'affected', fixed: '2.0.6' });
    assert.deepEqual(state('2.0.6', e), { state: 'clear' });
  });

  it('Go SEMVER ranges take module versions with v and pseudo-versions (GO-2023-1737: gin)', async () => {
    const e = entryOf((await snapshotRecords('Go', ['GO-2023-1737'])).get('GO-2023-1737')!);
    assert.deepEqual(state('v1.3.1-0.20190301021747-ccb9e902956d', e), { state: 'affected', fixed: '1.9.1' });
    assert.deepEqual(state('v1.3.0', e), { state: 'clear' });
    assert.deepEqual(state('v1.9.1', e), { state: 'clear' });
  });

  it('a withdrawn record is read as withdrawn (PYSEC-2019-144)', async () => {
    const r = (await snapshotRecords('PyPI', ['PYSEC-2019-144'])).get('PYSEC-2019-144')!;
    assert.equal(r.withdrawn?.toISOString(), '2022-09-09T05:28:00.000Z');
  });

  it('an explicit versions list matches exactly, and only listed versions', () => {
    const e: AffectedEntry = { type: 'npm', ranges: [], versions: ['1.2.3', '2.0.0-beta.1'] };
    assert.deepEqual(state('1.2.3', e), { state: 'affected', fixed: null });
    assert.deepEqual(state('2.0.0-beta.1', e), { state: 'affected', fixed: null });
    assert.deepEqual(state('1.2.4', e), { state: 'clear' });
    assert.deepEqual(state('1.2', e), { state: 'clear' });
  });

  it('limit bounds a range from above; * is unbounded', () => {
    const open: AffectedEntry = { type: 'npm', ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { limit: '2.0.0' }] }], versions: [] };
    assert.equal(state('1.5.0', open).state, 'affected');
    assert.equal(state('2.0.0', open).state, 'clear');
    const star: AffectedEntry = { type: 'npm', ranges: [{ type: 'SEMVER', events: [{ introduced: '1.0.0' }, { limit: '*' }] }], versions: [] };
    assert.equal(state('9.0.0', star).state, 'affected');
  });

  it('GIT ranges are ignored; a version the ecosystem cannot order is unknown, never a match', () => {
    const git: AffectedEntry = { type: 'pypi', ranges: [{ type: 'GIT', events: [{ introduced: '0' }, { fixed: 'abc123' }] }], versions: [] };
    assert.equal(state('1.0', git).state, 'clear');
    const e: AffectedEntry = { type: 'pypi', ranges: [{ type: 'ECOSYSTEM', events: [{ introduced: '0' }, { fixed: '2.0' }] }], versions: [] };
    assert.equal(state('not-a-version!', e).state, 'unknown');
  });
});

describe('package keys', () => {
  it('normalise each ecosystem as its registry does, the same from a purl and from an OSV record', () => {
    const same = (purl: string, ecosystem: string, name: string) => {
      const c = componentPackage(purl);
      assert.ok(!('reason' in c), purl);
      assert.equal(c.packageKey, osvPackage(ecosystem, name)?.packageKey, `${purl} ~ ${ecosystem}/${name}`);
    };
    same('pkg:pypi/Django_REST.framework@3.0', 'PyPI', 'django-rest-framework');
    same('pkg:pypi/PyYAML@5.1', 'PyPI', 'pyyaml');
    same('pkg:npm/%40Babel/Traverse@7.22.0', 'npm', '@babel/traverse');
    same('pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1', 'Maven', 'org.apache.logging.log4j:log4j-core');
    same('pkg:golang/github.com/gin-gonic/gin@v1.9.0', 'Go', 'github.com/gin-gonic/gin');
    same('pkg:nuget/Newtonsoft.Json@12.0.1', 'NuGet', 'newtonsoft.json');
    same('pkg:composer/Laravel/Framework@8.0.0', 'Packagist', 'laravel/framework');
    same('pkg:cargo/Smallvec@1.6.0', 'crates.io', 'smallvec');
    same('pkg:gem/rack@2.0.0', 'RubyGems', 'rack');
  });

  it('Maven coordinates are case-sensitive; other ecosystems do not mix', () => {
    const c = componentPackage('pkg:maven/org.Apache/Foo@1');
    assert.ok(!('reason' in c));
    assert.notEqual(c.packageKey, osvPackage('Maven', 'org.apache:foo')?.packageKey);
    const pypi = componentPackage('pkg:pypi/lodash@1');
    assert.ok(!('reason' in pypi));
    assert.notEqual(pypi.packageKey, osvPackage('npm', 'lodash')?.packageKey);
  });

  it('Debian: the source package (upstream qualifier) and the release (distro qualifier) decide', () => {
    const c = componentPackage('pkg:deb/debian/libssl1.1@1.1.1n-0%2Bdeb11u3?arch=amd64&upstream=openssl&distro=bullseye');
    assert.deepEqual(c, { packageKey: osvPackage('Debian:11', 'openssl')!.packageKey, type: 'deb', release: '11', version: '1.1.1n-0+deb11u3' });
    assert.equal(osvPackage('Debian:11', 'openssl')!.release, '11');
    assert.deepEqual(componentPackage('pkg:deb/debian/openssl@1.1.1n-0?arch=amd64'), { reason: 'no-distribution' });
  });

  it('says why a component cannot be matched', () => {
    assert.deepEqual(componentPackage(null), { reason: 'no-purl' });
    assert.deepEqual(componentPackage('not a purl'), { reason: 'invalid-purl' });
    assert.deepEqual(componentPackage('pkg:generic/lwip@2.2.0'), { reason: 'unsupported-ecosystem' });
    assert.deepEqual(componentPackage('pkg:npm/lodash'), { reason: 'no-version' });
    assert.deepEqual(componentPackage('pkg:npm/lodash', '4.17.15'), { packageKey: 'npm/lodash', type: 'npm', release: null, version: '4.17.15' });
  });
});
