import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { sql } from 'drizzle-orm';
import { vulndbSources } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Logger } from 'pino';
import type { Db } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { telemetrySink } from '../../kernel/telemetry.js';
import { OSV_ECOSYSTEMS } from '../vulndb/ecosystems.js';
import type { ArchiveLimits } from '../vulndb/feed-archive.js';
import { refreshVulndb } from './refresh-vulndb.js';

export type FeedSyncOptions = {
  /** The largest feed file downloaded (beyond: the download is abandoned). */
  maxBytes: number;
  timeoutMs: number;
  /** Plain http:// allowed (VULNDB_ALLOW_HTTP); otherwise a feed, and every redirect it takes, must be https://. */
  allowHttp: boolean;
  archiveLimits?: ArchiveLimits;
  fetch?: typeof fetch;
  onProgress?(line: string): void;
};

export type FeedSyncResult = { url: string; outcome: 'imported' | 'not-modified' | 'failed'; status?: number; error?: string; changedPackages?: number };

/**
 * Where a downloaded file goes so the importer reads it as what it is: OSV archives keep their
 * ecosystem folder (`.../PyPI/all.zip` -> `osv/PyPI/all.zip`), anything else its file name.
 */
function localPath(root: string, url: URL): string {
  const parts = url.pathname.split('/').filter(Boolean);
  const name = basename(parts.at(-1) ?? 'feed');
  const folder = parts.at(-2);
  if (folder && folder in OSV_ECOSYSTEMS) {
    mkdirSync(join(root, 'osv', folder), { recursive: true });
    return join(root, 'osv', folder, name);
  }
  return join(root, name);
}

/** A feed URL as logged and stored: never its user information or query (they may hold a token). */
const shown = (u: URL): string => `${u.protocol}//${u.host}${u.pathname}`;

function capped(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > max ? new Error(`the feed is larger than ${max} bytes`) : null, chunk);
    },
  });
}

/** Why a feed URL may not be fetched, or null: only https:// unless the operator allowed http://. */
function refusedScheme(url: URL, allowHttp: boolean): string | null {
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && allowHttp) return null;
  return `${shown(url)} is not https:// (VULNDB_ALLOW_HTTP allows plain http://)`;
}

/** Records the outcome of one attempt, so administrators see each feed's last sync and error. */
async function recordAttempt(db: Db, key: string, error: string | null): Promise<void> {
  await db.execute(sql`
    insert into ${vulndbSources} (${sqlColumns(vulndbSources, ['source', 'records', 'checkedAt', 'lastError'])}) values (${key}, 0, now(), ${error})
    on conflict (source) do update set checked_at = excluded.checked_at, last_error = excluded.last_error`);
}

/**
 * Fetches each configured feed URL with a conditional request (the ETag and Last-Modified of the
 * last import: an unchanged feed costs a 304 and nothing else), imports what changed and re-matches
 * (refreshVulndb). One feed failing does not stop the others; a failed one is retried next pass.
 */
export async function syncFeeds(db: Db, urls: readonly string[], o: FeedSyncOptions): Promise<FeedSyncResult[]> {
  const fetchImpl = o.fetch ?? fetch;
  const results: FeedSyncResult[] = [];
  for (const raw of urls) {
    const url = new URL(raw);
    const key = `url:${shown(url)}`;
    const [last] = await selectRows<{ etag: string | null; last_modified: string | null }>(
      db,
      sql`select etag, last_modified from vulndb_sources where source = ${key}`,
    );
    const refused = refusedScheme(url, o.allowHttp);
    if (refused) {
      await recordAttempt(db, key, refused);
      results.push({ url: shown(url), outcome: 'failed', error: refused });
      continue;
    }
    const root = mkdtempSync(join(tmpdir(), 'cradle-feed-'));
    let failure: FeedSyncResult | null = null;
    try {
      const headers: Record<string, string> = {};
      // fetch refuses credentials in a URL: they travel as Basic authentication instead.
      const target = new URL(url);
      if (target.username || target.password) {
        headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(target.username)}:${decodeURIComponent(target.password)}`).toString('base64')}`;
        target.username = '';
        target.password = '';
      }
      if (last?.etag) headers['if-none-match'] = last.etag;
      if (last?.last_modified) headers['if-modified-since'] = last.last_modified;
      const res = await fetchImpl(target, { headers, signal: AbortSignal.timeout(o.timeoutMs), redirect: 'follow' });
      const redirected = res.url ? refusedScheme(new URL(res.url), o.allowHttp) : null;
      if (redirected) {
        await res.body?.cancel();
        failure = { url: shown(url), outcome: 'failed', error: `redirected: ${redirected}` };
        continue;
      }
      if (res.status === 304) {
        await res.body?.cancel();
        await recordAttempt(db, key, null);
        results.push({ url: shown(url), outcome: 'not-modified', status: 304 });
        continue;
      }
      if (!res.ok || !res.body) {
        await res.body?.cancel();
        failure = { url: shown(url), outcome: 'failed', status: res.status, error: `answered ${res.status}` };
        continue;
      }
      const path = localPath(root, url);
      const hash = createHash('sha256');
      const hashing = new Transform({ transform: (c: Buffer, _e, done) => (hash.update(c), done(null, c)) });
      await pipeline(Readable.fromWeb(res.body as Parameters<typeof Readable.fromWeb>[0]), capped(o.maxBytes), hashing, createWriteStream(path));
      const r = await refreshVulndb(db, root, {
        ...(o.onProgress ? { onProgress: o.onProgress } : {}),
        ...(o.archiveLimits ? { archiveLimits: o.archiveLimits } : {}),
      });
      const failed = r.files.find((f) => f.failed);
      if (failed) {
        // Not marked imported (no ETag kept): the next pass downloads it again.
        failure = { url: shown(url), outcome: 'failed', status: res.status, error: failed.failed!.replace(root, '') };
        continue;
      }
      await db.execute(sql`
        insert into ${vulndbSources} (${sqlColumns(vulndbSources, ['source', 'etag', 'lastModified', 'sha256', 'records', 'importedAt', 'checkedAt', 'lastError'])})
        values (${key}, ${res.headers.get('etag')}, ${res.headers.get('last-modified')}, ${hash.digest('hex')}, ${r.files.reduce((n, f) => n + (f.applied ?? 0), 0)}, now(), now(), null)
        on conflict (source) do update set etag = excluded.etag, last_modified = excluded.last_modified, sha256 = excluded.sha256, records = excluded.records,
          imported_at = excluded.imported_at, checked_at = excluded.checked_at, last_error = null`);
      results.push({ url: shown(url), outcome: 'imported', status: res.status, changedPackages: r.changedPackages.size });
    } catch (e) {
      failure = { url: shown(url), outcome: 'failed', error: (e as Error).message };
    } finally {
      rmSync(root, { recursive: true, force: true });
      if (failure) {
        await recordAttempt(db, key, failure.error ?? 'failed');
        results.push(failure);
      }
    }
  }
  return results;
}

/** A feed's metric label: host and path, without credentials or query (they may carry a token). */
function feedLabel(url: string): string {
  const u = new URL(url);
  return `${u.host}${u.pathname}`;
}

/** One pass of the server's feed synchronisation (a periodic job of src/jobs/registry.ts): `syncFeeds`, logged and counted. */
export async function feedSyncPass(db: Db, urls: readonly string[], o: FeedSyncOptions & { log: Logger }): Promise<void> {
  const results = await syncFeeds(db, urls, o);
  for (const r of results) {
    if (r.outcome === 'failed') o.log.warn({ feed: r.url, status: r.status, err: r.error }, 'vulnerability feed sync failed; retried next pass');
    else o.log.info({ feed: r.url, outcome: r.outcome, changedPackages: r.changedPackages }, 'vulnerability feed synchronised');
  }
  telemetrySink()?.feedSync(results.map((r) => ({ feed: feedLabel(r.url), outcome: r.outcome })));
}
