import { createHash } from 'node:crypto';
import { AppError, ErrorCode, validation } from './errors.js';

/** Limits for an uploaded JSON document (SBOM, SARIF). */
export type DocumentLimits = {
  /** Largest accepted body in bytes (default 50 MB). */
  maxBytes?: number;
  /** Deepest accepted nesting of arrays and objects (default 64). */
  maxDepth?: number;
};
export const DEFAULT_MAX_BYTES = 50 * 1024 * 1024;
export const DEFAULT_MAX_DEPTH = 64;

export type JsonDocument = { doc: unknown; bytes: Buffer; sha256: string };

/**
 * Size check, nesting check, then one JSON.parse. The body is kept as the caller's Buffer (no copy
 * when one is given); the decoded string exists only for the duration of the parse. The nesting
 * scan runs before parsing because the schema validator and the normalisers recurse, and a
 * pathological `[[[[...]]]]` must be a clean VALIDATION error, not a stack overflow.
 */
export function readJsonDocument(raw: string | Buffer, limits: DocumentLimits = {}): JsonDocument {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const size = typeof raw === 'string' ? Buffer.byteLength(raw, 'utf8') : raw.length;
  if (size > maxBytes) {
    throw new AppError(ErrorCode.PAYLOAD_TOO_LARGE, `the document is ${size} bytes; the limit is ${maxBytes}`);
  }
  if (size === 0) throw validation('the document is empty');
  const bytes = typeof raw === 'string' ? Buffer.from(raw, 'utf8') : raw;
  const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09 && b !== 0xef && b !== 0xbb && b !== 0xbf);
  if (first === 0x3c) throw new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, 'XML documents are not accepted; send the JSON form');
  // PostgreSQL text and jsonb cannot hold U+0000; refuse it here rather than fail mid-transaction.
  // (A literal backslash followed by "u0000" in a string is refused too: rare, and the safe side.)
  if (bytes.includes('\\u0000')) throw validation('the document contains a NUL character (\\u0000), which cannot be stored');
  const depth = maxNesting(bytes, limits.maxDepth ?? DEFAULT_MAX_DEPTH);
  if (depth < 0) throw validation(`the document nests deeper than ${limits.maxDepth ?? DEFAULT_MAX_DEPTH} levels`);
  // A UTF-8 byte order mark is allowed by RFC 8259 readers "may ignore"; CI tools do emit it.
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString('utf8', start));
  } catch (e) {
    throw validation(`the document is not valid JSON: ${(e as Error).message}`);
  }
  return { doc, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/**
 * Deepest nesting of `[`/`{` outside strings, or -1 as soon as it exceeds `limit`. A byte scan:
 * multi-byte UTF-8 sequences never contain bytes below 0x80, so they cannot be mistaken for
 * brackets or quotes. Most bytes of an SBOM are inside strings, so a string is skipped with the
 * native `indexOf` of its closing quote (a quote after an odd run of backslashes is escaped).
 */
export function maxNesting(bytes: Buffer, limit: number): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] as number;
    if (c === 0x22) {
      let end = bytes.indexOf(0x22, i + 1);
      while (end > 0) {
        let backslashes = 0;
        while (bytes[end - 1 - backslashes] === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
        end = bytes.indexOf(0x22, end + 1);
      }
      if (end < 0) return max; // an unterminated string: JSON.parse refuses it next
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return -1;
      if (depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}
