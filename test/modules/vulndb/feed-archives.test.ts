// Feed files an operator or a feed mirror hands over are untrusted bytes: archives that claim far
// more than they hold are refused whole, named with the rule they broke (issue 32, finding 3), and
// a folder laid out as the real distributions are (the KEV catalog beside its JSON schema, READMEs,
// checksum lists) imports what it can, skips what it does not know and says so (issue 37).
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { selectRows } from '../../../src/db/sql-rows.js';
import { syncFeeds } from '../../../src/modules/known-vulns/feed-sync.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../../../src/modules/vulndb/feed-archive.js';
import { importFeeds } from '../../../src/modules/vulndb/import-feeds.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { osvRecord } from '../../helpers/vulndb.js';
import { zipOf } from '../../helpers/zip-writer.js';

const KEV = new URL('../../../../shared/data/vulndb/kev/known_exploited_vulnerabilities.json', import.meta.url).pathname;

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

const recordsNamed = async (prefix: string) =>
  (await selectRows<{ n: number }>(d.db, sql`select count(*)::int as n from vulndb_records where id like ${`${prefix}%`}`))[0]!.n;
const record = (id: string, extra: Record<string, unknown> = {}) =>
  Buffer.from(
    JSON.stringify({ ...osvRecord({ id, ecosystem: 'npm', name: `pkg-${id.toLowerCase()}`, events: [{ introduced: '0' }, { fixed: '1.0.0' }] }), ...extra }),
  );

/** A folder `osv/npm/` holding `name` with these bytes. */
function archiveFolder(name: string, bytes: Buffer): { root: string; path: string } {
  const root = mkdtempSync(join(tmpdir(), 'cradle-archive-'));
  mkdirSync(join(root, 'osv', 'npm'), { recursive: true });
  const path = join(root, 'osv', 'npm', name);
  writeFileSync(path, bytes);
  return { root, path };
}

describe('OSV archives are bounded', () => {
  it('refuses overlapping entries (many names for one deflate stream) before inflating any, and imports nothing of it', async () => {
    // One 8 MiB record that deflates to a few KiB, named 200 times in the directory: 1.6 GB to inflate.
    const big = record('BOMB-OVERLAP-0', { details: ' '.repeat(8 * 1024 * 1024) });
    const { root, path } = archiveFolder(
      'all.zip',
      zipOf(
        [{ name: 'BOMB-OVERLAP-0.json', data: big }],
        Array.from({ length: 200 }, (_, i) => `BOMB-OVERLAP-${i + 1}.json`),
      ),
    );
    const r = await importFeeds(d.db, root);
    assert.equal(r.files.length, 1);
    assert.equal(r.files[0]!.path, path);
    assert.match(r.files[0]!.failed ?? '', /overlap in the file \(overlapping entries\)/);
    assert.equal(await recordsNamed('BOMB-OVERLAP'), 0);
  });

  it('refuses an archive that names one entry twice', async () => {
    const { path } = archiveFolder(
      'all.zip',
      zipOf([
        { name: 'DUP-1.json', data: record('DUP-1') },
        { name: 'DUP-1.json', data: record('DUP-1', { summary: 'the second copy' }) },
      ]),
    );
    const [f] = (await importFeeds(d.db, path)).files;
    assert.match(f!.failed ?? '', /the entry name "DUP-1\.json" appears twice \(duplicated entries\)/);
    assert.equal(await recordsNamed('DUP-'), 0);
  });

  it('refuses an entry that expands more than the ratio allows, naming the setting', async () => {
    const { path } = archiveFolder('all.zip', zipOf([{ name: 'RATIO-1.json', data: record('RATIO-1', { details: 'a'.repeat(2 * 1024 * 1024) }) }]));
    const [f] = (await importFeeds(d.db, path)).files;
    assert.match(f!.failed ?? '', /"RATIO-1\.json" expands more than 100 times \(VULNDB_ARCHIVE_MAX_RATIO\)/);
    assert.equal(await recordsNamed('RATIO-'), 0);
  });

  it('refuses an archive whose records add up to more than the total allowed, and stops one past its time budget', async () => {
    const entries = Array.from({ length: 20 }, (_, i) => ({ name: `SIZE-${i}.json`, data: record(`SIZE-${i}`) }));
    const { path } = archiveFolder('all.zip', zipOf(entries));
    const [tooBig] = (await importFeeds(d.db, path, { archiveLimits: { ...DEFAULT_ARCHIVE_LIMITS, maxTotalBytes: 4096 } })).files;
    assert.match(tooBig!.failed ?? '', /expand to \d+ bytes, more than 4096 \(VULNDB_ARCHIVE_MAX_BYTES\)/);
    assert.equal(await recordsNamed('SIZE-'), 0);
    const [slow] = (await importFeeds(d.db, path, { archiveLimits: { ...DEFAULT_ARCHIVE_LIMITS, maxMs: 0 } })).files;
    assert.match(slow!.failed ?? '', /took longer than 0 s \(VULNDB_ARCHIVE_MAX_SECONDS\)/);
    // Within the limits, the same archive imports whole.
    const [ok] = (await importFeeds(d.db, path)).files;
    assert.equal(ok!.failed, undefined);
    assert.equal(ok!.applied, 20);
    assert.equal(await recordsNamed('SIZE-'), 20);
  });

  it('reports progress against the number of records in the archive', async () => {
    const entries = Array.from({ length: 5 }, (_, i) => ({ name: `PROG-${i}.json`, data: record(`PROG-${i}`) }));
    const { path } = archiveFolder('all.zip', zipOf(entries));
    const lines: string[] = [];
    await importFeeds(d.db, path, { batchSize: 2, onProgress: (l) => lines.push(l) });
    assert.ok(lines.includes(`${path}: 2 of 5 records read, 2 new or changed`), lines.join('\n'));
  });
});

describe('folders as the distributions lay them out', () => {
  it('imports the KEV catalog beside its JSON schema and skips the schema, naming it', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cradle-kev-'));
    copyFileSync(KEV, join(root, 'known_exploited_vulnerabilities.json'));
    writeFileSync(
      join(root, 'known_exploited_vulnerabilities_schema.json'),
      JSON.stringify({
        $schema: 'http://json-schema.org/draft-07/schema#',
        title: 'KEV catalog',
        type: 'object',
        required: ['catalogVersion', 'vulnerabilities'],
        properties: { catalogVersion: { type: 'string' }, vulnerabilities: { type: 'array' } },
      }),
    );
    const r = await importFeeds(d.db, root);
    assert.deepEqual(
      r.files.map((f) => [f.path.slice(root.length + 1), f.kind ?? null, f.skipped ?? null, f.failed ?? null, f.applied ?? null]),
      [
        ['known_exploited_vulnerabilities.json', 'kev', null, null, 1404],
        ['known_exploited_vulnerabilities_schema.json', null, 'a JSON schema, not a feed', null, null],
      ],
    );
    assert.equal((await selectRows<{ n: number }>(d.db, sql`select count(*)::int as n from vulndb_kev`))[0]!.n, 1404);
  });

  it('skips unknown files beside real feeds, and a bad feed file fails alone, named', async () => {
    const root = mkdtempSync(join(tmpdir(), 'cradle-mixed-'));
    mkdirSync(join(root, 'osv', 'npm'), { recursive: true });
    writeFileSync(join(root, 'README.md'), '# feeds\n');
    writeFileSync(join(root, 'SHA256SUMS'), 'abc  osv/npm/all.zip\n');
    writeFileSync(join(root, 'osv', 'npm', 'modified_id.csv'), '2026-01-01T00:00:00Z,MIX-1\n');
    writeFileSync(join(root, 'osv', 'npm', 'all.zip'), zipOf([{ name: 'MIX-1.json', data: record('MIX-1') }]));
    writeFileSync(join(root, 'osv', 'npm', 'broken.zip'), Buffer.from('not a zip at all'));
    writeFileSync(join(root, 'epss.csv'), '#model_version:v1,score_date:2026-01-30T00:00:00Z\ncve,epss,percentile\nCVE-2026-0001,0.5,0.9\n');
    const lines: string[] = [];
    const r = await importFeeds(d.db, root, { onProgress: (l) => lines.push(l) });
    const rel = (p: string) => p.slice(root.length + 1);
    assert.deepEqual(
      r.files.map((f) => [rel(f.path), f.skipped ? 'skipped' : f.failed ? 'failed' : 'imported']),
      [
        ['README.md', 'skipped'],
        ['SHA256SUMS', 'skipped'],
        ['epss.csv', 'imported'],
        ['osv/npm/all.zip', 'imported'],
        ['osv/npm/broken.zip', 'failed'],
        ['osv/npm/modified_id.csv', 'skipped'],
      ],
    );
    assert.match(r.files.find((f) => f.path.endsWith('broken.zip'))!.failed ?? '', /not a readable zip archive/);
    assert.ok(lines.includes(`${join(root, 'README.md')}: skipped: not a feed file (.zip, .json, .csv or .csv.gz)`), lines.join('\n'));
    assert.equal(await recordsNamed('MIX-'), 1);
    // The failed file is not recorded as imported: the next import reads it again.
    const again = await importFeeds(d.db, root);
    assert.equal(again.files.find((f) => f.path.endsWith('broken.zip'))!.unchanged, undefined);
    assert.equal(again.files.find((f) => f.path.endsWith('all.zip'))!.unchanged, true);
  });
});

describe('feed URLs are https:// unless the operator allows otherwise', () => {
  it('refuses a plain http:// feed at start, naming the setting that allows it', () => {
    assert.throws(
      () => loadConfig({ VULNDB_FEED_URLS: 'http://mirror.example/npm/all.zip' }),
      (e: Error) => e instanceof ConfigError && /not https:\/\/.*VULNDB_ALLOW_HTTP/.test(e.message),
    );
    assert.throws(() => loadConfig({ VULNDB_KEV_URL: 'http://mirror.example/kev.json' }), /VULNDB_ALLOW_HTTP/);
    const allowed = loadConfig({ VULNDB_FEED_URLS: 'http://mirror.example/npm/all.zip', VULNDB_ALLOW_HTTP: 'true' });
    assert.equal(allowed.vulndb.allowHttp, true);
    assert.equal(loadConfig({}).vulndb.live.osvBase, 'https://osv-vulnerabilities.storage.googleapis.com/');
  });

  it('the sync itself refuses a plain http:// URL without asking it, and records the error', async () => {
    let asked = 0;
    const server = createServer((_req, res) => {
      asked++;
      res.end('x');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/npm/all.zip`;
    try {
      const [r] = await syncFeeds(d.db, [url], { maxBytes: 1024, timeoutMs: 5000, allowHttp: false });
      assert.equal(r!.outcome, 'failed');
      assert.match(r!.error ?? '', /not https:\/\/ \(VULNDB_ALLOW_HTTP allows plain http:\/\/\)/);
      assert.equal(asked, 0);
    } finally {
      server.close();
    }
    const [row] = await selectRows<{ last_error: string }>(d.db, sql`select last_error from vulndb_sources where source = ${`url:${url}`}`);
    assert.match(row!.last_error, /not https/);
  });
});
