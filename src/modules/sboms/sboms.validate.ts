import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import addFormats2019 from 'ajv-formats-draft2019';
import { validation } from '../../kernel/errors.js';
import { enumSet, readSchema, schemaIssues, uniqueItemsFast, useFastUniqueItems, useSetEnums } from '../../kernel/json-schema.js';
import type { SbomFormat } from './sboms.detect.js';

const dir = new URL('../../../src/modules/sboms/schemas/', import.meta.url);

// eslint-disable-next-line no-control-regex
const IRI_REFERENCE = /^[^\s<>"{}|\\^`\u0000-\u001f\u007f]*$/u;

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

/**
 * One validator instance for every SBOM schema (all draft-07): the CycloneDX versions share the
 * SPDX licence-id, JSF signature and cryptography subschemas, registered once by their `$id`.
 * `strict: false` because the official schemas carry annotation keywords ajv does not know.
 * Formats are enforced (ajv-formats, plus the draft 2019 `idn-email` and `iri-reference` that the
 * CycloneDX schemas use): several official invalid-* vectors differ from valid ones only there.
 */
function instance(): Ajv {
  if (ajv) return ajv;
  const a = new Ajv({ strict: false, allErrors: false, validateSchema: false });
  addFormats.default(a);
  a.addKeyword(uniqueItemsFast);
  a.addKeyword(enumSet);
  addFormats2019(a, { formats: ['idn-email', 'idn-hostname'] });
  // The draft-2019 package's IRI check rejects registered forms such as `urn:cdx:…#ref` that the
  // official valid-saasbom vectors use; an IRI-reference here is any string without whitespace,
  // controls or the characters RFC 3987 excludes. No official invalid-* vector depends on it.
  a.addFormat('iri-reference', IRI_REFERENCE);
  a.addFormat('iri', IRI_REFERENCE);
  for (const f of ['spdx.schema.json', 'jsf-0.82.schema.json', 'cryptography-defs.schema.json']) {
    a.addSchema(useSetEnums(readSchema(new URL(f, dir))));
  }
  ajv = a;
  return a;
}

const FILES: Record<string, string> = {
  'cyclonedx:1.4': 'bom-1.4.schema.json',
  'cyclonedx:1.5': 'bom-1.5.schema.json',
  'cyclonedx:1.6': 'bom-1.6.schema.json',
  'cyclonedx:1.7': 'bom-1.7.schema.json',
  'spdx:2.3': 'spdx-2.3.schema.json',
};

/** Compiles each official schema on first use and keeps it for the life of the process. */
function validatorFor(format: SbomFormat, specVersion: string): ValidateFunction {
  const key = `${format}:${specVersion}`;
  let v = compiled.get(key);
  if (!v) {
    const file = FILES[key];
    if (!file) throw new Error(`no schema for ${key}`);
    v = instance().compile(useSetEnums(useFastUniqueItems(readSchema(new URL(file, dir)))));
    compiled.set(key, v);
  }
  return v;
}

/**
 * Compiles the schemas most pushes use (CycloneDX 1.6, SPDX 2.3) ahead of need: run once in each
 * offload worker as it starts (`warmUp` of sboms.read.ts), not at a push's first use.
 */
export function compileCommonSbomSchemas(): void {
  validatorFor('cyclonedx', '1.6');
  validatorFor('spdx', '2.3');
}

/** Throws VALIDATION with the JSON pointers of the first schema errors when the document is invalid. */
export function validateSbom(format: SbomFormat, specVersion: string, doc: unknown): void {
  const v = validatorFor(format, specVersion);
  if (v(doc)) return;
  const issues = schemaIssues(v.errors);
  const first = issues[0];
  const label = format === 'cyclonedx' ? `CycloneDX ${specVersion}` : `SPDX ${specVersion}`;
  throw validation(`the document is not valid ${label}${first ? `: ${first.path || '/'} ${first.message}` : ''}`, issues);
}
