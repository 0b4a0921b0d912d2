import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { test } from 'node:test';
import { SRC, sourceFiles } from './import-graph.js';

/**
 * Libraries that most of the server's life never calls are imported on first use (`await
 * import(...)`), never by a static import: V8 keeps every loaded module's source and compiled
 * objects for the life of the process, which an idle server pays for (ADR 0020; OpenPGP.js alone is
 * 2.3 MiB of source). Type-only imports cost nothing at run time and are allowed.
 */
const ON_FIRST_USE = ['openpgp'];

test('libraries needed only now and then are imported on first use', () => {
  const offenders = sourceFiles(SRC).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)'/gm)]
      .filter((m) => ON_FIRST_USE.includes(m[1] as string))
      .map((m) => `${relative(SRC, file)} imports ${m[1]} at load`),
  );
  assert.deepEqual(offenders, []);
});
