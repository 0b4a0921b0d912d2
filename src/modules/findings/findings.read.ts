import { gzipSync } from 'node:zlib';
import { packChunks } from '../../kernel/chunked-json.js';
import { validation } from '../../kernel/errors.js';
import { type DocumentLimits, readJsonDocument } from '../../kernel/json-document.js';
import { ownBytes } from '../../kernel/worker-bytes.js';
import type { TaskOutput } from '../../kernel/worker-task.js';
import { type ExtractOptions, extractFindings } from './findings.extract.js';
import { validateSarif, validator } from './findings.validate.js';

export type PushSarifOptions = DocumentLimits &
  ExtractOptions & {
    /** Most results accepted in one log (default 500,000). */
    maxResults?: number;
  };
export const DEFAULT_MAX_RESULTS = 500_000;

/** Run once in each offload worker as it starts (src/kernel/worker-entry.ts): the SARIF schema compiled before a push needs it. */
export function warmUp(): void {
  validator();
}

/** Parses, validates and extracts: the CPU-heavy part, run before any transaction opens. */
export function readSarif(raw: string | Buffer, opts: PushSarifOptions = {}) {
  const { doc, bytes, sha256 } = readJsonDocument(raw, opts);
  validateSarif(doc);
  const extracted = extractFindings(doc, opts);
  const max = opts.maxResults ?? DEFAULT_MAX_RESULTS;
  if (extracted.resultCount > max) throw validation(`the log holds ${extracted.resultCount} results; the limit is ${max}`);
  return { ...extracted, bytes, sha256 };
}

/** What the worker hands back: counts, the gzip'd log, each tool's findings as JSON chunks (see packChunks). */
export type PackedSarif = { resultCount: number; artifactsCapped: number; sha256: string; byteSize: number; tools: [string, string[]][]; document: Uint8Array };

/** The worker's task (src/kernel/worker-pool.ts): see readSbomTask in sboms.read.ts. */
export function readSarifTask(input: { body: Uint8Array; opts: PushSarifOptions }): TaskOutput<PackedSarif> {
  const bytes = Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength);
  const read = readSarif(bytes, input.opts);
  const document = ownBytes(gzipSync(bytes, { level: 3 }));
  const value: PackedSarif = {
    resultCount: read.resultCount,
    artifactsCapped: read.artifactsCapped,
    sha256: read.sha256,
    byteSize: bytes.length,
    tools: [...read.byTool].map(([tool, list]) => [tool, packChunks(list)]),
    document,
  };
  return { value, transfer: [document.buffer as ArrayBuffer] };
}
