// Scheduled feed synchronisation against a local HTTP server that serves the snapshot files as the
// live feeds are served: conditional requests (ETag / Last-Modified), an unchanged feed costs a 304,
// a changed one is imported and re-matched, a failing one does not stop the others.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { selectRows } from '../../../src/db/sql-rows.js';
import { syncFeeds } from '../../../src/modules/known-vulns/feed-sync.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

const SNAPSHOTS = new URL('../../../../shared/data/vulndb/', import.meta.url).pathname;
const files: Record<string, Buffer> = {
  '/PyPI/all.zip': readFileSync(`${SNAPSHOTS}osv/PyPI/all.zip`),
  '/feeds/known_exploited_vulnerabilities.json': readFileSync(`${SNAPSHOTS}kev/known_exploited_vulnerabilities.json`),
};
const seen: { path: string; headers: IncomingHttpHeaders; status: number }[] = [];
const etag = (b: Buffer) => `"${createHash('sha256').update(b).digest('hex').slice(0, 16)}"`;
const LAST_MODIFIED = 'Mon, 25 Aug 2025 10:00:00 GMT';

let d: TestDatabase;
let server: Server;
let base: string;
before(async () => {
  d = await createTestDatabase();
  server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const body = files[path];
    let status = 200;
    if (path === '/broken.zip') status = 500;
    else if (!body) status = 404;
    // The OSV bucket answers ETag; the KEV feed Last-Modified: one of each.
    else if (path.endsWith('.zip') ? req.headers['if-none-match'] === etag(body) : req.headers['if-modified-since'] === LAST_MODIFIED) status = 304;
    seen.push({ path, headers: req.headers, status });
    if (status !== 200) return res.writeHead(status).end();
    res
      .writeHead(
        200,
        path.endsWith('.zip')
          ? { etag: etag(body!), 'content-type': 'application/zip' }
          : { 'last-modified': LAST_MODIFIED, 'content-type': 'application/json' },
      )
      .end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.close();
  await d.drop();
});

const count = async (table: string) => (await selectRows<{ n: number }>(d.db, sql`select count(*)::int as n from ${sql.identifier(table)}`))[0]!.n;
const opts = { maxBytes: 64 * 1024 * 1024, timeoutMs: 30_000, allowHttp: true };

describe('feed synchronisation', () => {
  it('imports each feed, then asks conditionally and imports nothing while nothing changed', async () => {
    const urls = [`${base}/PyPI/all.zip`, `${base}/broken.zip`, `${base}/feeds/known_exploited_vulnerabilities.json`];
    const first = await syncFeeds(d.db, urls, opts);
    assert.deepEqual(
      first.map((r) => [r.outcome, r.status]),
      [
        ['imported', 200],
        ['failed', 500],
        ['imported', 200],
      ],
    );
    assert.equal(await count('vulndb_records'), 2661);
    assert.equal(await count('vulndb_kev'), 1404);
    const [pypi] = await selectRows<{ source: string; records: number }>(d.db, sql`select source, records from vulndb_sources where source = 'osv:PyPI'`);
    assert.deepEqual(pypi, { source: 'osv:PyPI', records: 2661 }, 'the archive is read as the PyPI feed');

    seen.length = 0;
    const second = await syncFeeds(d.db, urls, opts);
    assert.deepEqual(
      second.map((r) => r.outcome),
      ['not-modified', 'failed', 'not-modified'],
    );
    assert.equal(seen.find((s) => s.path === '/PyPI/all.zip')?.headers['if-none-match'], etag(files['/PyPI/all.zip']!));
    assert.equal(seen.find((s) => s.path.endsWith('.json'))?.headers['if-modified-since'], LAST_MODIFIED);
  });

  it('imports a feed again when it changed, and only what changed', async () => {
    const catalog = JSON.parse(files['/feeds/known_exploited_vulnerabilities.json']!.toString('utf8')) as { vulnerabilities: Record<string, unknown>[] };
    catalog.vulnerabilities.push({
      cveID: 'CVE-2099-0100',
      vendorProject: 'x',
      product: 'y',
      vulnerabilityName: 'z',
      dateAdded: '2026-11-25',
      shortDescription: 's',
      requiredAction: 'a',
      dueDate: '2026-12-16',
      knownRansomwareCampaignUse: 'Unknown',
      notes: '',
      cwes: [],
    });
    files['/feeds/new_kev/known_exploited_vulnerabilities.json'] = Buffer.from(JSON.stringify(catalog));
    const r = await syncFeeds(d.db, [`${base}/feeds/new_kev/known_exploited_vulnerabilities.json`], opts);
    assert.deepEqual(
      r.map((x) => x.outcome),
      ['imported'],
    );
    assert.equal(await count('vulndb_kev'), 1405);
  });

  it('abandons a download larger than the limit and keeps what was there', async () => {
    const before = await count('vulndb_records');
    files['/mirror/PyPI/all.zip'] = files['/PyPI/all.zip']!;
    const r = await syncFeeds(d.db, [`http://user:token@127.0.0.1:${new URL(base).port}/mirror/PyPI/all.zip?sig=secret`], { ...opts, maxBytes: 1024 });
    assert.equal(r[0]!.outcome, 'failed');
    assert.match(r[0]!.error ?? '', /larger than 1024 bytes/);
    // Credentials and query of a feed URL are never reported or stored.
    assert.equal(r[0]!.url, `http://127.0.0.1:${new URL(base).port}/mirror/PyPI/all.zip`);
    assert.equal(seen.at(-1)?.headers.authorization, `Basic ${Buffer.from('user:token').toString('base64')}`);
    const sources = await selectRows<{ source: string }>(d.db, sql`select source from vulndb_sources`);
    assert.ok(sources.every((x) => !x.source.includes('token') && !x.source.includes('secret')));
    assert.equal(await count('vulndb_records'), before);
  });
});
