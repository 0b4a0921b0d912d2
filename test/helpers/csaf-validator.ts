import { readdirSync, readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const dir = new URL('../fixtures/csaf/', import.meta.url);
const read = (name: string) => JSON.parse(readFileSync(new URL(name, dir), 'utf8')) as Record<string, unknown>;

/**
 * The official CSAF 2.0 schema (draft 2020-12) with the FIRST CVSS schemas it references. Those are
 * older drafts: registered under their URLs without their own `$schema`/`id` keywords, as the shared
 * README advises, so one 2020-12 validator reads them all.
 */
export function csafAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats.default(ajv);
  for (const v of ['2.0', '3.0', '3.1']) {
    const { $schema: _s, id: _i, $id: _d, ...schema } = read(`cvss-v${v}.json`);
    ajv.addSchema(schema, `https://www.first.org/cvss/cvss-v${v}.json`);
  }
  ajv.addSchema(read('csaf_json_schema.json'));
  return ajv;
}

export const csafValidator = (): ValidateFunction =>
  csafAjv().getSchema('https://docs.oasis-open.org/csaf/csaf/v2.0/csaf_json_schema.json') as ValidateFunction;

/** The provider-metadata schema, which references the CSAF schema's publisher definition. */
export const providerValidator = (): ValidateFunction => csafAjv().compile(read('provider_json_schema.json'));

export const csafExamples = (): { name: string; doc: unknown }[] =>
  readdirSync(new URL('examples/', dir))
    .filter((f) => f.endsWith('.json'))
    .map((name) => ({ name, doc: read(`examples/${name}`) }));
