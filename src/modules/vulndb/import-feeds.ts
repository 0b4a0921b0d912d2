import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { sql } from 'drizzle-orm';
import { vulndbSources } from '../../db/schema/index.js';
import { sqlColumns } from '../../db/sql-columns.js';
import type { Db } from '../../db/client.js';
import { selectRows } from '../../db/sql-rows.js';
import { importEpss, openEpss } from './epss.js';
import { type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS, type FeedEntry, openFeedArchive } from './feed-archive.js';
import { type FeedFile, findFeedFiles } from './feed-files.js';
import { importKev } from './kev.js';
import { readOsvRecord, type StoredRecord } from './osv-record.js';
import { applyOsvBatch } from './osv-store.js';

export type FileReport = {
  path: string;
  /** Absent for a skipped file. */
  source?: string;
  kind?: FeedFile['kind'];
  /** Not a feed file: why it was left alone (a warning, not a failure). */
  skipped?: string;
  /** The file could not be imported (named, with the rule it broke); the other files were. */
  failed?: string;
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

export type ImportOptions = {
  onProgress?(line: string): void;
  /** Re-read files even when unchanged. */
  force?: boolean;
  batchSize?: number;
  archiveLimits?: ArchiveLimits;
};

const MAX_ERRORS_LISTED = 20;

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function osvEntries(file: FeedFile, limits: ArchiveLimits): Promise<{ count: number; entries: Iterable<FeedEntry> | AsyncIterable<FeedEntry> }> {
  if (file.kind === 'osv-archive') return openFeedArchive(file.path, limits);
  return { count: 1, entries: [{ name: file.path, bytes: await readFile(file.path) }] };
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
  const found = await findFeedFiles(path);
  if (found.length === 0) say(`no files found at ${path}`);
  for (const file of found) {
    if ('skipped' in file) {
      say(`${file.path}: skipped: ${file.skipped}`);
      result.files.push({ path: file.path, skipped: file.skipped });
      continue;
    }
    try {
      result.files.push(await importFile(db, file, result, opts, say));
    } catch (e) {
      // One bad file fails alone: the others are imported, and this one is read again next time.
      const failed = e instanceof Error && e.message.startsWith(file.path) ? e.message.slice(file.path.length + 2) : (e as Error).message;
      say(`${file.path}: failed: ${failed}`);
      result.files.push({ path: file.path, source: file.source, kind: file.kind, failed });
    }
  }
  return result;
}

/** One feed file: skipped when unchanged since its last import, else read and recorded as imported. */
async function importFile(db: Db, file: FeedFile, result: ImportResult, opts: ImportOptions, say: (line: string) => void): Promise<FileReport> {
  const sha256 = await fileSha256(file.path);
  const key = file.kind === 'osv-record' ? `${file.source}:${file.path}` : file.source;
  const [last] = await selectRows<{ sha256: string }>(db, sql`select sha256 from vulndb_sources where source = ${key}`);
  if (!opts.force && last?.sha256 === sha256) {
    say(`${file.path}: unchanged since the last import`);
    return { path: file.path, source: file.source, kind: file.kind, unchanged: true };
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
    await importOsvFile(db, file, report, result.changedPackages, opts, say);
  }
  await db.execute(sql`
    insert into ${vulndbSources} (${sqlColumns(vulndbSources, ['source', 'sha256', 'records', 'importedAt'])}) values (${key}, ${sha256}, ${report.applied ?? 0}, now())
    on conflict (source) do update set sha256 = excluded.sha256, records = excluded.records, imported_at = excluded.imported_at`);
  return report;
}

async function importOsvFile(
  db: Db,
  file: FeedFile,
  report: FileReport,
  changed: Set<string>,
  opts: ImportOptions,
  say: (line: string) => void,
): Promise<void> {
  const batchSize = opts.batchSize ?? 1000;
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
  const { count, entries } = await osvEntries(file, opts.archiveLimits ?? DEFAULT_ARCHIVE_LIMITS);
  for await (const entry of entries) {
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
      say(`${file.path}: ${report.read} of ${count} records read, ${report.applied} new or changed`);
    }
  }
  await flush();
  say(`${file.path}: ${report.read} records read, ${report.applied} new or changed, ${report.withdrawn} withdrawn, ${report.rejected} rejected`);
  for (const e of report.errors!) say(`  rejected ${e}`);
}
