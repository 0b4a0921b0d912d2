import * as mandatory from '@secvisogram/csaf-validator-lib/mandatoryTests.js';
import * as optional from '@secvisogram/csaf-validator-lib/optionalTests.js';
import { csaf_2_0_strict } from '@secvisogram/csaf-validator-lib/schemaTests.js';
import validateStrict, { type DocumentTest } from '@secvisogram/csaf-validator-lib/validateStrict.js';

/** One finding: the test's number (`6.2.13`), where, and what. */
export type Finding = { test: string; path: string; message: string };
export type BsiResult = { errors: Finding[]; warnings: Finding[]; tests: string[] };

const numberOf = (name: string) => (/^(mandatory|optional)Test_/.test(name) ? name.replace(/^(mandatory|optional)Test_/, '').replaceAll('_', '.') : name);
const all = (m: Record<string, DocumentTest>): DocumentTest[] => Object.values(m).filter((t) => typeof t === 'function');

/**
 * BSI's CSAF validator (@secvisogram/csaf-validator-lib, the library behind Secvisogram and the
 * BSI validator service) on one document: the strict CSAF 2.0 schema, every mandatory test (6.1.x)
 * and every recommended test (6.2.x). Errors come from the schema and mandatory tests, warnings
 * from the recommended ones. `only` narrows the run to some tests by number.
 */
export async function bsiValidate(doc: unknown, only?: string[]): Promise<BsiResult> {
  const tests = [csaf_2_0_strict, ...all(mandatory), ...all(optional)].filter((t) => !only || only.includes(numberOf(t.name)));
  const result = await validateStrict(tests, doc);
  const pick = (kind: 'errors' | 'warnings') =>
    result.tests.flatMap((t) => t[kind].map((m) => ({ test: numberOf(t.name), path: m.instancePath, message: m.message })));
  return { errors: pick('errors'), warnings: pick('warnings'), tests: result.tests.map((t) => numberOf(t.name)) };
}
