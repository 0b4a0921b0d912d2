import type { ValidateFunction } from 'ajv';
import AjvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { validation } from '../../kernel/errors.js';
import { readSchema, schemaIssues, uniqueItemsFast, useFastUniqueItems } from '../../kernel/json-schema.js';

let compiled: ValidateFunction | undefined;

/**
 * The OASIS SARIF 2.1.0 schema is JSON Schema draft-04, which ajv 8 reads only through its
 * draft-04 class. Compiled once per offload worker as it starts (`warmUp` of findings.read.ts), or
 * on first use, then kept.
 */
export function validator(): ValidateFunction {
  if (compiled) return compiled;
  const ajv = new AjvDraft04.default({ strict: false, allErrors: false, validateSchema: false });
  addFormats.default(ajv);
  ajv.addKeyword(uniqueItemsFast);
  const v = ajv.compile(useFastUniqueItems(readSchema(new URL('../../../src/modules/findings/schemas/sarif-schema-2.1.0.json', import.meta.url))));
  compiled = v;
  return v;
}

/** Throws VALIDATION (with JSON pointers) unless the log is SARIF 2.1.0 and schema-valid. */
export function validateSarif(doc: unknown): void {
  const version = (doc as { version?: unknown } | null)?.version;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || version !== '2.1.0') {
    throw validation(`only SARIF 2.1.0 is accepted (version ${JSON.stringify(version ?? null)})`, [{ path: '/version', message: 'must be "2.1.0"' }]);
  }
  const v = validator();
  if (v(doc)) return;
  const issues = schemaIssues(v.errors);
  const first = issues[0];
  throw validation(`the log is not valid SARIF 2.1.0${first ? `: ${first.path || '/'} ${first.message}` : ''}`, issues);
}
