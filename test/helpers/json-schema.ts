import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** Compiles an official JSON schema from test/fixtures with ajv (draft-07, formats, unicode patterns). */
export function compileSchema(path: string): ValidateFunction {
  const ajv = new Ajv({ allErrors: false, strict: false });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8')));
}
