// BSI's csaf-validator-lib (test-only) ships JavaScript with JSDoc and no declarations; this is
// the part of its surface the suite uses. Every test function carries its identifier as its name.
declare module '@secvisogram/csaf-validator-lib/validateStrict.js' {
  export type Message = { instancePath: string; message: string };
  export type DocumentTest = (doc: unknown) => unknown;
  export type TestResult = { name: string; isValid: boolean; errors: Message[]; warnings: Message[]; infos: Message[] };
  /** Runs the given tests (only the library's own: anything else throws) on one document. */
  export default function validateStrict(tests: DocumentTest[], doc: unknown): Promise<{ isValid: boolean; tests: TestResult[] }>;
}
declare module '@secvisogram/csaf-validator-lib/mandatoryTests.js' {
  import type { DocumentTest } from '@secvisogram/csaf-validator-lib/validateStrict.js';
  const tests: Record<string, DocumentTest>;
  export = tests;
}
declare module '@secvisogram/csaf-validator-lib/optionalTests.js' {
  import type { DocumentTest } from '@secvisogram/csaf-validator-lib/validateStrict.js';
  const tests: Record<string, DocumentTest>;
  export = tests;
}
declare module '@secvisogram/csaf-validator-lib/schemaTests.js' {
  import type { DocumentTest } from '@secvisogram/csaf-validator-lib/validateStrict.js';
  export const csaf_2_0_strict: DocumentTest;
}
