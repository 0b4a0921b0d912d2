// Reads OSV `all.zip` archives (one record per entry, as the OSV bucket serves them) within bounds:
// an archive is a file from the network, and a zip can claim far more than it holds (docs/threat-model.md,
// "Second review (issue 32): feed archives").
import { readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { crc32, inflateRawSync } from 'node:zlib';
import yauzl from 'yauzl';

/** The largest single record accepted from an archive: the biggest real OSV records are a few MB. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** What one archive may cost: named settings VULNDB_ARCHIVE_MAX_BYTES, _MAX_RATIO, _MAX_SECONDS (src/config.ts). */
export type ArchiveLimits = {
  /** Sum of the uncompressed sizes of the records read. */
  maxTotalBytes: number;
  /** Uncompressed to compressed size, of the archive's records together and of each record past 64 KiB. */
  maxRatio: number;
  /** Time budget of reading and importing one archive. */
  maxMs: number;
};

export const DEFAULT_ARCHIVE_LIMITS: ArchiveLimits = { maxTotalBytes: 4 * 1024 ** 3, maxRatio: 100, maxMs: 30 * 60_000 };

/** Below this size a record's compression ratio is not judged: it cannot cost much whatever it is. */
const RATIO_FLOOR = 64 * 1024;

/** Work between two yields to the event loop while inflating (a server keeps answering meanwhile). */
const YIELD_EVERY_BYTES = 4 * 1024 * 1024;

/** An archive refused whole, before or while reading it: the message names the file and the rule. */
export class FeedFileError extends Error {
  override name = 'FeedFileError';
}

export type FeedEntry = { name: string; bytes: Buffer } | { name: string; error: string };
export type ArchiveReading = { path: string; count: number; entries: AsyncGenerator<FeedEntry> };

type EntryIterator = AsyncIterable<yauzl.Entry>;

const isRecord = (e: yauzl.Entry) => !e.fileName.endsWith('/') && e.fileName.endsWith('.json');

/**
 * Opens an archive and checks its central directory before a byte is inflated: no two entries
 * share a name or overlap in the file (the overlapping-entry bomb inflates one deflate stream once
 * per entry naming it), the records' total size and ratio stay within `limits`. Throws
 * FeedFileError otherwise, so nothing of a refused archive is imported.
 */
export async function openFeedArchive(path: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): Promise<ArchiveReading> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  } catch (e) {
    throw new FeedFileError(`${path}: not a readable zip archive (${(e as Error).message})`);
  }
  const entries: yauzl.Entry[] = [];
  try {
    for await (const entry of (zip as unknown as { eachEntry(): EntryIterator }).eachEntry()) entries.push(entry);
    checkDirectory(path, entries, limits);
  } catch (e) {
    zip.close();
    throw e instanceof FeedFileError ? e : new FeedFileError(`${path}: damaged zip directory (${(e as Error).message})`);
  }
  const records = entries.filter(isRecord);
  return { path, count: records.length, entries: readRecords(path, zip, records, limits) };
}

function checkDirectory(path: string, entries: yauzl.Entry[], limits: ArchiveLimits): void {
  const names = new Set<string>();
  for (const e of entries) {
    if (names.has(e.fileName)) throw new FeedFileError(`${path}: refused: the entry name "${e.fileName}" appears twice (duplicated entries)`);
    names.add(e.fileName);
  }
  const byOffset = [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
  for (let i = 1; i < byOffset.length; i++) {
    const prev = byOffset[i - 1]!;
    // The least room an entry takes: its local header, its name and its compressed data.
    const end = prev.relativeOffsetOfLocalHeader + 30 + prev.fileNameLength + prev.compressedSize;
    if (byOffset[i]!.relativeOffsetOfLocalHeader < end)
      throw new FeedFileError(`${path}: refused: the entries "${prev.fileName}" and "${byOffset[i]!.fileName}" overlap in the file (overlapping entries)`);
  }
  let total = 0;
  let compressed = 0;
  for (const e of entries.filter(isRecord)) {
    total += e.uncompressedSize;
    compressed += e.compressedSize;
    if (e.uncompressedSize > RATIO_FLOOR && e.uncompressedSize > limits.maxRatio * Math.max(e.compressedSize, 1))
      throw new FeedFileError(`${path}: refused: the entry "${e.fileName}" expands more than ${limits.maxRatio} times (VULNDB_ARCHIVE_MAX_RATIO)`);
  }
  if (total > limits.maxTotalBytes)
    throw new FeedFileError(`${path}: refused: its records expand to ${total} bytes, more than ${limits.maxTotalBytes} (VULNDB_ARCHIVE_MAX_BYTES)`);
  if (total > RATIO_FLOOR && total > limits.maxRatio * Math.max(compressed, 1))
    throw new FeedFileError(`${path}: refused: its records expand more than ${limits.maxRatio} times (VULNDB_ARCHIVE_MAX_RATIO)`);
}

async function* readRecords(path: string, zip: yauzl.ZipFile, records: yauzl.Entry[], limits: ArchiveLimits): AsyncGenerator<FeedEntry> {
  const file = await open(path, 'r');
  const started = Date.now();
  let sinceYield = 0;
  try {
    for (const entry of records) {
      // Measured between records, so the budget covers the importer's database work too.
      if (Date.now() - started >= limits.maxMs)
        throw new FeedFileError(`${path}: stopped: reading it took longer than ${Math.round(limits.maxMs / 1000)} s (VULNDB_ARCHIVE_MAX_SECONDS)`);
      if (entry.uncompressedSize > MAX_RECORD_BYTES || entry.compressedSize > MAX_RECORD_BYTES) {
        yield { name: entry.fileName, error: `larger than ${MAX_RECORD_BYTES} bytes` };
        continue;
      }
      sinceYield += entry.uncompressedSize;
      if (sinceYield >= YIELD_EVERY_BYTES) {
        sinceYield = 0;
        await yieldToLoop();
      }
      yield readEntry(file, entry);
    }
  } finally {
    await file.close();
    zip.close();
  }
}

/** The `.json` entries of a zip archive, one at a time (the archive is never held whole). */
export async function* zipEntries(path: string, limits: ArchiveLimits = DEFAULT_ARCHIVE_LIMITS): AsyncGenerator<FeedEntry> {
  yield* (await openFeedArchive(path, limits)).entries;
}

/** Room read past the local header for its name and extra field, so most entries take one read. */
const HEADER_SLACK = 30 + 256;

/**
 * Each entry's bytes are read at their offset and inflated here, with the CRC-32 checked: a stream
 * per entry (yauzl's openReadStream) cost three quarters of an OSV archive's read time (measured:
 * 16 s against 4 s for 50,000 entries). Positional reads are synchronous: a few kilobytes each,
 * where an asynchronous read's round trip through the thread pool cost more than the read.
 */
function readEntry(file: FileHandle, entry: yauzl.Entry): FeedEntry {
  const name = entry.fileName;
  const at = entry.relativeOffsetOfLocalHeader;
  let chunk = Buffer.allocUnsafe(HEADER_SLACK + entry.compressedSize);
  const bytesRead = readSync(file.fd, chunk, 0, chunk.length, at);
  if (bytesRead < 30 || chunk.readUInt32LE(0) !== 0x04034b50) return { name, error: 'damaged archive: no local header where the directory says' };
  const skip = 30 + chunk.readUInt16LE(26) + chunk.readUInt16LE(28);
  if (skip + entry.compressedSize > bytesRead) {
    // A long name or extra field: read the data where it starts.
    chunk = Buffer.allocUnsafe(entry.compressedSize);
    readSync(file.fd, chunk, 0, chunk.length, at + skip);
  } else chunk = chunk.subarray(skip, skip + entry.compressedSize);
  let bytes: Buffer;
  try {
    if (entry.compressionMethod === 0) bytes = chunk;
    else if (entry.compressionMethod === 8) bytes = inflateRawSync(chunk, { maxOutputLength: Math.max(entry.uncompressedSize, 1) });
    else return { name, error: `compression method ${entry.compressionMethod} is not supported` };
  } catch (e) {
    return { name, error: `damaged entry: ${(e as Error).message}` };
  }
  if (bytes.length !== entry.uncompressedSize || crc32(bytes) !== entry.crc32)
    return { name, error: 'damaged entry: size or CRC-32 does not match the directory' };
  return { name, bytes };
}
