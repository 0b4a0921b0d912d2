// Reads the files an operator imports: OSV `all.zip` archives (one record per entry, as the OSV
// bucket serves them), folders of record files, single records, the KEV catalog and EPSS CSVs.
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import { OSV_ECOSYSTEMS } from './ecosystems.js';

/** The largest single record accepted from an archive: the biggest real OSV records are a few MB. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export type FeedEntry = { name: string; bytes: Buffer } | { name: string; error: string };

async function readStream(stream: Readable, limit: number): Promise<Buffer | null> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      stream.destroy();
      return null;
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

type EntryIterator = AsyncIterable<yauzl.Entry>;

/** The `.json` entries of a zip archive, one at a time (the archive is never held whole). */
export async function* zipEntries(path: string): AsyncGenerator<FeedEntry> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: true });
  const entries = (zip as unknown as { eachEntry(): EntryIterator }).eachEntry();
  for await (const entry of entries) {
    if (entry.fileName.endsWith('/') || !entry.fileName.endsWith('.json')) continue;
    if (entry.uncompressedSize > MAX_RECORD_BYTES) {
      yield { name: entry.fileName, error: `larger than ${MAX_RECORD_BYTES} bytes` };
      continue;
    }
    const bytes = await readStream(await zip.openReadStreamPromise(entry), MAX_RECORD_BYTES);
    yield bytes ? { name: entry.fileName, bytes } : { name: entry.fileName, error: `larger than ${MAX_RECORD_BYTES} bytes` };
  }
}

export type FeedKind = 'osv-archive' | 'osv-record' | 'kev' | 'epss';
export type FeedFile = { path: string; kind: FeedKind; source: string };

/** The feed an OSV file belongs to: its folder when named after an ecosystem (`osv/PyPI/all.zip`). */
function osvSource(path: string): string {
  const folder = basename(dirname(path));
  return folder in OSV_ECOSYSTEMS ? `osv:${folder}` : 'osv';
}

async function classify(path: string): Promise<FeedFile | null> {
  const name = basename(path).toLowerCase();
  if (name.endsWith('.zip')) return { path, kind: 'osv-archive', source: osvSource(path) };
  if (/\.csv(\.gz)?$/.test(name)) return { path, kind: 'epss', source: 'epss' };
  if (!name.endsWith('.json')) return null;
  if (name.startsWith('known_exploited_vulnerabilities')) return { path, kind: 'kev', source: 'kev' };
  // A JSON file not named as the KEV catalog: the catalog has `catalogVersion` near its start.
  const head = (await readFile(path)).subarray(0, 512).toString('utf8');
  if (head.includes('"catalogVersion"')) return { path, kind: 'kev', source: 'kev' };
  return { path, kind: 'osv-record', source: osvSource(path) };
}

/** Every importable file at `path` (a file, or a folder searched recursively), in name order. */
export async function findFeedFiles(path: string): Promise<FeedFile[]> {
  const info = await stat(path);
  if (info.isFile()) {
    const f = await classify(path);
    return f ? [f] : [];
  }
  const out: FeedFile[] = [];
  const names = (await readdir(path)).sort();
  for (const n of names) out.push(...(await findFeedFiles(join(path, n))));
  return out;
}

export const openFile = (path: string) => createReadStream(path);
