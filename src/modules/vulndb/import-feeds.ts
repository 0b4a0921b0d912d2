import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { importEpss, openEpss } from './epss.js';
import { type FeedEntry, type FeedFile, findFeedFiles, zipEntries } from './feed-files.js';
import { importKev } from './kev.js';
import { readOsvRecord, type StoredRecord } from './osv-record.js';
import { applyOsvBatch } from './osv-store.js';

export type FileReport = {
  path: string;
  source: string;
  kind: FeedFile['kind'];
  /** The file is byte-for-byte the one imported last time: nothing was read. */
  unchanged?: boolean;
  read?: number;
  applied?: number;
  withdrawn?: number;
  rejected?: number;
  errors?: string[];
  /** KEV: the catalog version; EPSS: the score date. */
  version?: string;
};

export type ImportResult = { files: FileReport[]; changedPackages: Set<string>; kevAdded: string[]; kevRemoved: string[] };

export type ImportOptions = { onProgress?(line: string): void; /** Re-read files even when unchanged. */ force?: boolean; batchSize?: number };

const MAX_ERRORS_LISTED = 20;

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function* osvEntries(file: FeedFile): AsyncGenerator<FeedEntry> {
  if (file.kind === 'osv-archive') yield* zipEntries(file.path);
  else yield { name: file.path, bytes: await readFile(file.path) };
}

/**
 * Imports feed files (OSV archives and records, the KEV catalog, EPSS scores) into the advisory
 * store. Idempotent: a file identical to the last import of its source is skipped, and within a
 * changed file only records whose content changed are written. Answers the packages whose
 * advisories changed and the CVEs new to KEV, for the re-match that follows.
 */
export async function importFeeds(db: Db, path: string, opts: ImportOptions = {}): Promise<ImportResult> {
  const say = opts.onProgress ?? (() => {});
  const result: ImportResult = { files: [], changedPackages: new Set(), kevAdded: [], kevRemoved: [] };
  const files = await findFeedFiles(path);
  if (files.length === 0) say(`no feed files found at ${path}`);
  for (const file of files) {
    const sha256 = await fileSha256(file.path);
    const key = file.kind === 'osv-record' ? `${file.source}:${file.path}` : file.source;
    const [last] = await selectRows<{ sha256: string }>(db, sql`select sha256 from vulndb_sources where source = ${key}`);
    if (!opts.force && last?.sha256 === sha256) {
      say(`${file.path}: unchanged since the last import`);
      result.files.push({ path: file.path, source: file.source, kind: file.kind, unchanged: true });
      continue;
    }
    const report: FileReport = { path: file.path, source: file.source, kind: file.kind, read: 0, applied: 0, withdrawn: 0, rejected: 0, errors: [] };
    if (file.kind === 'kev') {
      const kev = await importKev(db, await readFile(file.path));
      report.read = kev.entries;
      report.applied = kev.entries;
      report.version = kev.catalogVersion;
      result.kevAdded.push(...kev.added);
      result.kevRemoved.push(...kev.removed);
      say(`${file.path}: KEV catalog ${kev.catalogVersion}, ${kev.entries} entries, ${kev.added.length} new, ${kev.removed.length} removed`);
    } else if (file.kind === 'epss') {
      const epss = await importEpss(db, openEpss(file.path));
      report.read = epss.rows + epss.rejected;
      report.applied = epss.rows;
      report.rejected = epss.rejected;
      report.version = epss.scoreDate;
      say(`${file.path}: EPSS ${epss.scoreDate}, ${epss.rows} scores${epss.rejected ? `, ${epss.rejected} lines rejected` : ''}`);
    } else {
      await importOsvFile(db, file, report, result.changedPackages, opts.batchSize ?? 1000, say);
    }
    await db.execute(sql`
      insert into vulndb_sources (source, sha256, records, imported_at) values (${key}, ${sha256}, ${report.applied ?? 0}, now())
      on conflict (source) do update set sha256 = excluded.sha256, records = excluded.records, imported_at = excluded.imported_at`);
    result.files.push(report);
  }
  return result;
}

async function importOsvFile(db: Db, file: FeedFile, report: FileReport, changed: Set<string>, batchSize: number, say: (line: string) => void): Promise<void> {
  let batch: StoredRecord[] = [];
  const reject = (name: string, error: string) => {
    report.rejected!++;
    if (report.errors!.length < MAX_ERRORS_LISTED) report.errors!.push(`${name}: ${error}`);
  };
  const flush = async () => {
    const r = await applyOsvBatch(db, file.source, batch);
    batch = [];
    report.applied! += r.applied;
    report.withdrawn! += r.withdrawn;
    for (const k of r.changedPackages) changed.add(k);
  };
  for await (const entry of osvEntries(file)) {
    report.read!++;
    if ('error' in entry) {
      reject(entry.name, entry.error);
      continue;
    }
    const r = readOsvRecord(entry.bytes);
    if (!r.ok) reject(entry.name, r.error);
    else batch.push(r.record);
    if (batch.length >= batchSize) {
      await flush();
      say(`${file.path}: ${report.read} records read, ${report.applied} new or changed`);
    }
  }
  await flush();
  say(`${file.path}: ${report.read} records read, ${report.applied} new or changed, ${report.withdrawn} withdrawn, ${report.rejected} rejected`);
  for (const e of report.errors!) say(`  rejected ${e}`);
}
