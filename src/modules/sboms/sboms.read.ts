import { gzipSync } from 'node:zlib';
import { packChunks } from '../../kernel/chunked-json.js';
import { validation } from '../../kernel/errors.js';
import { type DocumentLimits, readJsonDocument } from '../../kernel/json-document.js';
import { ownBytes } from '../../kernel/worker-bytes.js';
import type { TaskOutput } from '../../kernel/worker-task.js';
import { componentPackage } from '../vulndb/ecosystems.js';
import { detectSbom, type SbomFormat } from './sboms.detect.js';
import { normaliseCycloneDx } from './sboms.normalise-cyclonedx.js';
import { normaliseSpdx } from './sboms.normalise-spdx.js';
import type { NormalSbom } from './sboms.normalised.js';
import { compileCommonSbomSchemas, validateSbom } from './sboms.validate.js';

export type PushSbomOptions = DocumentLimits & {
  /** Most components accepted in one document (default 500,000). */
  maxComponents?: number;
};
export const DEFAULT_MAX_COMPONENTS = 500_000;

/** Run once in each offload worker as it starts (src/kernel/worker-entry.ts): the common schemas compiled before a push needs them. */
export const warmUp = compileCommonSbomSchemas;

/** Parses, validates and normalises: the CPU-heavy part, run before any transaction opens. */
export function readSbom(raw: string | Buffer, opts: PushSbomOptions = {}) {
  const { doc, bytes, sha256 } = readJsonDocument(raw, opts);
  const { format, specVersion } = detectSbom(doc);
  validateSbom(format, specVersion, doc);
  const normal: NormalSbom = format === 'cyclonedx' ? normaliseCycloneDx(doc) : normaliseSpdx(doc);
  const max = opts.maxComponents ?? DEFAULT_MAX_COMPONENTS;
  if (normal.components.length > max) {
    throw validation(`the document lists ${normal.components.length} components; the limit is ${max}`);
  }
  return { format, specVersion, normal, bytes, sha256 };
}

/** What the worker hands back: metadata, the gzip'd original, rows as JSON chunks (see packChunks). */
export type PackedSbom = {
  format: SbomFormat;
  specVersion: string;
  sha256: string;
  byteSize: number;
  serialNumber: string | null;
  subject: NormalSbom['subject'];
  componentCount: number;
  /** Chunks of [component, package] pairs, in document order. */
  components: string[];
  edges: string[];
  document: Uint8Array;
};

/**
 * The worker's task (src/kernel/worker-pool.ts): the body arrives as transferred bytes and is
 * read, checked, normalised, matched to package keys and compressed here, so the event loop does
 * none of it and never holds the parsed tree.
 */
export function readSbomTask(input: { body: Uint8Array; opts: PushSbomOptions }): TaskOutput<PackedSbom> {
  const bytes = Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength);
  const read = readSbom(bytes, input.opts);
  const { components, edges } = read.normal;
  const rows = components.map((c) => [c, componentPackage(c.purl, c.version)]);
  // Level 3: about three times faster than the default 6 on SBOM JSON for a few per cent more bytes.
  const document = ownBytes(gzipSync(bytes, { level: 3 }));
  const value: PackedSbom = {
    format: read.format,
    specVersion: read.specVersion,
    sha256: read.sha256,
    byteSize: bytes.length,
    serialNumber: read.normal.serialNumber,
    subject: read.normal.subject,
    componentCount: components.length,
    components: packChunks(rows),
    edges: packChunks(edges),
    document,
  };
  return { value, transfer: [document.buffer as ArrayBuffer] };
}
