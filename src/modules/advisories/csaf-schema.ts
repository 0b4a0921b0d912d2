import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { readSchema, schemaIssues } from '../../kernel/json-schema.js';

const schema = (name: string) => readSchema(new URL(`../../../src/modules/advisories/schemas/${name}`, import.meta.url));
const CSAF_ID = 'https://docs.oasis-open.org/csaf/csaf/v2.0/csaf_json_schema.json';

let compiled: ValidateFunction | undefined;

/**
 * The official CSAF 2.0 schema (draft 2020-12). The FIRST CVSS schemas it references are older
 * drafts; they are registered under their URLs without their own `$schema`/`id`, so one 2020-12
 * validator reads them all. Compiled once, on first use (about 100 ms).
 */
function validator(): ValidateFunction {
  if (compiled) return compiled;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  for (const v of ['2.0', '3.0', '3.1']) {
    const { $schema: _s, id: _i, $id: _d, ...cvss } = schema(`cvss-v${v}.json`);
    ajv.addSchema(cvss, `https://www.first.org/cvss/cvss-v${v}.json`);
  }
  ajv.addSchema(schema('csaf_json_schema.json'));
  compiled = ajv.getSchema(CSAF_ID) as ValidateFunction;
  return compiled;
}

/** Throws UNPROCESSABLE (422) with JSON pointers unless `doc` is valid against the CSAF 2.0 schema. */
export function assertValidCsaf(doc: unknown, what: string): void {
  const validate = validator();
  if (validate(doc)) return;
  const issues = schemaIssues(validate.errors);
  throw new AppError(ErrorCode.UNPROCESSABLE, `the ${what} is not valid CSAF 2.0: ${issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`, {
    issues,
  });
}
