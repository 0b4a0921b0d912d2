import { AppError, ErrorCode } from '../../kernel/errors.js';

export const SbomFormat = { cyclonedx: 'cyclonedx', spdx: 'spdx' } as const;
export type SbomFormat = (typeof SbomFormat)[keyof typeof SbomFormat];

export const CYCLONEDX_VERSIONS = ['1.4', '1.5', '1.6', '1.7'] as const;
export const SUPPORTED = 'CycloneDX 1.4, 1.5, 1.6 and 1.7 JSON, and SPDX 2.3 JSON';

/** Media types of the accepted formats, for transports and for serving the stored original. */
export const SBOM_MEDIA_TYPES = {
  cyclonedx: 'application/vnd.cyclonedx+json',
  spdx: 'application/spdx+json',
} as const;

const unsupported = (what: string): AppError => new AppError(ErrorCode.UNSUPPORTED_MEDIA_TYPE, `${what} is not supported; supported: ${SUPPORTED}`);

/**
 * Recognises the format by its own markers: CycloneDX by `bomFormat` and `specVersion`, SPDX 2.x
 * by `spdxVersion`. SPDX 3.0.1 (JSON-LD, `@context` + `@graph`) is recognised so the refusal can
 * name it: it needs a separate graph parser that this service does not have yet.
 */
export function detectSbom(doc: unknown): { format: SbomFormat; specVersion: string } {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw unsupported('a JSON document that is not an object');
  const d = doc as Record<string, unknown>;
  if (d.bomFormat === 'CycloneDX' || (typeof d.$schema === 'string' && d.$schema.includes('cyclonedx.org'))) {
    const v = d.specVersion;
    if (d.bomFormat === 'CycloneDX' && typeof v === 'string' && (CYCLONEDX_VERSIONS as readonly string[]).includes(v)) {
      return { format: 'cyclonedx', specVersion: v };
    }
    // A wrong bomFormat with a CycloneDX $schema, or an old/unknown specVersion.
    if (d.bomFormat !== 'CycloneDX') throw unsupported(`bomFormat ${JSON.stringify(d.bomFormat)}`);
    throw unsupported(`CycloneDX specVersion ${JSON.stringify(v)}`);
  }
  if (typeof d.spdxVersion === 'string') {
    if (d.spdxVersion === 'SPDX-2.3') return { format: 'spdx', specVersion: '2.3' };
    throw unsupported(`spdxVersion ${JSON.stringify(d.spdxVersion)}`);
  }
  if ('@context' in d || '@graph' in d) {
    const ctx = JSON.stringify(d['@context'] ?? '');
    throw unsupported(ctx.includes('spdx.org/rdf/3') ? 'SPDX 3 JSON-LD' : 'a JSON-LD document');
  }
  throw unsupported('a JSON document that is neither CycloneDX (bomFormat) nor SPDX (spdxVersion)');
}
