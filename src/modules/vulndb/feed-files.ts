// Which feed each file an operator imports is: OSV `all.zip` archives, OSV record files, the KEV
// catalog and EPSS CSVs, told apart by what they hold. A file that is none of them (the KEV
// distribution's JSON schema beside its catalog, a README, a checksum list) is skipped with its reason.
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { OSV_ECOSYSTEMS } from './ecosystems.js';
import { MAX_RECORD_BYTES } from './feed-archive.js';

export type FeedKind = 'osv-archive' | 'osv-record' | 'kev' | 'epss';
export type FeedFile = { path: string; kind: FeedKind; source: string };
/** A file that is not a feed: skipped, with why. */
export type SkippedFile = { path: string; skipped: string };

/** The largest JSON file looked into: the KEV catalog is about 1.5 MB, OSV records a few MB at most. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** The feed an OSV file belongs to: its folder when named after an ecosystem (`osv/PyPI/all.zip`). */
function osvSource(path: string): string {
  const folder = basename(dirname(path));
  return folder in OSV_ECOSYSTEMS ? `osv:${folder}` : 'osv';
}

/** The first line of a text file, gzip or not (at most 4 KiB read). */
async function firstLine(path: string, gzip: boolean): Promise<string> {
  const file = createReadStream(path, { end: gzip ? 64 * 1024 : 4095 });
  const input = gzip ? file.pipe(createGunzip()) : file;
  let text = '';
  try {
    for await (const chunk of input) {
      text += String(chunk);
      if (text.includes('\n') || text.length >= 4096) break;
    }
  } catch {
    // A truncated read of a gzip stream ends here; what was read is enough to tell.
  } finally {
    file.destroy();
  }
  return text.split('\n')[0]!.trim();
}

async function classifyJson(path: string, size: number): Promise<FeedFile | SkippedFile> {
  if (size > MAX_JSON_BYTES) return { path, skipped: `a JSON file larger than ${MAX_JSON_BYTES} bytes is no feed this importer reads` };
  let json: unknown;
  try {
    json = JSON.parse((await readFile(path)).toString('utf8'));
  } catch {
    return { path, skipped: 'not JSON' };
  }
  const o = (json ?? {}) as Record<string, unknown>;
  if (typeof o !== 'object' || Array.isArray(o)) return { path, skipped: 'neither a KEV catalog nor an OSV record' };
  if (typeof o.$schema === 'string') return { path, skipped: 'a JSON schema, not a feed' };
  if (typeof o.catalogVersion === 'string' && Array.isArray(o.vulnerabilities)) return { path, kind: 'kev', source: 'kev' };
  if (typeof o.id === 'string' && 'modified' in o) {
    if (size > MAX_RECORD_BYTES) return { path, skipped: `an OSV record larger than ${MAX_RECORD_BYTES} bytes` };
    return { path, kind: 'osv-record', source: osvSource(path) };
  }
  return { path, skipped: 'neither a KEV catalog (catalogVersion, vulnerabilities) nor an OSV record (id, modified)' };
}

async function classify(path: string, size: number): Promise<FeedFile | SkippedFile> {
  const name = basename(path).toLowerCase();
  if (name.endsWith('.zip')) return { path, kind: 'osv-archive', source: osvSource(path) };
  const csv = /\.csv(\.gz)?$/.exec(name);
  if (csv) {
    const line = await firstLine(path, csv[1] !== undefined);
    return /^#model_version:|^cve,epss,percentile/i.test(line)
      ? { path, kind: 'epss', source: 'epss' }
      : { path, skipped: 'a CSV that is not FIRST EPSS scores' };
  }
  if (name.endsWith('.json')) return classifyJson(path, size);
  return { path, skipped: 'not a feed file (.zip, .json, .csv or .csv.gz)' };
}

/**
 * Every file at `path` (a file, or a folder searched recursively, hidden entries left out), in
 * name order: the feeds, and the files skipped with their reason.
 */
export async function findFeedFiles(path: string): Promise<(FeedFile | SkippedFile)[]> {
  const info = await stat(path);
  if (info.isFile()) return [await classify(path, info.size)];
  if (!info.isDirectory()) return [{ path, skipped: 'neither a file nor a folder' }];
  const out: (FeedFile | SkippedFile)[] = [];
  const names = (await readdir(path)).filter((n) => !n.startsWith('.')).sort();
  for (const n of names) out.push(...(await findFeedFiles(join(path, n))));
  return out;
}
