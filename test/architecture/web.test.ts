import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { SRC, sourceFiles } from './import-graph.js';

/**
 * The dashboard and the public pages are a transport (issue 38): they read the database only
 * through verbs, and they read posted fields only through src/web/form-fields.ts, so two pages
 * never differ in how they treat a blank or repeated field.
 */
const WEB = join(SRC, 'web');
const FORM_FIELDS = join(WEB, 'form-fields.ts');

/** What a file under src/web must not contain, each with the reason shown on failure. */
const RULES: { pattern: RegExp; why: string }[] = [
  { pattern: /from\s+'[^']*\/db\/schema(?:\/[^']*)?(?:\.js)?'/, why: 'imports the database schema (read through a verb of the owning module)' },
  { pattern: /from\s+'drizzle-orm(?:\/[^']*)?'/, why: 'imports drizzle-orm (queries belong in src/modules/)' },
  {
    pattern: /typeof\s+([\w.[\]'"]+)\s*===\s*'string'\s*\?\s*\(?\s*\1(?:\s+as\s+string\s*\))?(?:\.trim\(\))?\s*:\s*(?:''|undefined|null)/,
    why: 'reads a form field itself (use src/web/form-fields.ts)',
  },
  { pattern: /Array\.isArray\(\s*([\w.[\]'"]+)\s*\)\s*\?\s*\1\.filter\(/, why: 'reads a repeated form field itself (use listField of src/web/form-fields.ts)' },
];

/** Each broken rule as `file: why`. */
function violations(files: readonly string[], read = (f: string) => readFileSync(f, 'utf8')): string[] {
  return files
    .filter((f) => f !== FORM_FIELDS)
    .flatMap((f) => {
      const text = read(f);
      return RULES.filter((r) => r.pattern.test(text)).map((r) => `${relative(SRC, f)}: ${r.why}`);
    });
}

test('no file under src/web imports the database schema or drizzle, or reads form fields outside form-fields.ts', () => {
  assert.deepEqual(violations(sourceFiles(WEB)), []);
});

test('the check itself sees a schema import, a drizzle import and each shape of a local field reader', () => {
  const sources: Record<string, string> = {
    'dashboard/a.ts': "import { users } from '../../db/schema/index.js';",
    'dashboard/b.ts': "import { inArray } from 'drizzle-orm';",
    'c.ts': "const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);",
    'dashboard/d.ts': "const s = (v: unknown) => (typeof v === 'string' ? v.trim() : '');",
    'dashboard/e.ts': "const x = typeof b[k] === 'string' ? (b[k] as string) : '';",
    'dashboard/f.ts': "const l = (v: unknown) => (Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);",
    'dashboard/g.ts': "const email = typeof body.email === 'string' ? body.email : '';",
    // Not readers: a union narrowed to format it, and form-fields.ts itself.
    'dashboard/h.ts': "const t = (typeof iso === 'string' ? iso : iso.toISOString());",
    'form-fields.ts': "export const textField = (v: unknown): string => (typeof v === 'string' ? v : '');",
  };
  const files = Object.keys(sources).map((f) => join(WEB, f));
  const found = violations(files, (f) => sources[relative(WEB, f)] ?? '');
  assert.deepEqual(found, [
    'web/dashboard/a.ts: imports the database schema (read through a verb of the owning module)',
    'web/dashboard/b.ts: imports drizzle-orm (queries belong in src/modules/)',
    'web/c.ts: reads a form field itself (use src/web/form-fields.ts)',
    'web/dashboard/d.ts: reads a form field itself (use src/web/form-fields.ts)',
    'web/dashboard/e.ts: reads a form field itself (use src/web/form-fields.ts)',
    'web/dashboard/f.ts: reads a repeated form field itself (use listField of src/web/form-fields.ts)',
    'web/dashboard/g.ts: reads a form field itself (use src/web/form-fields.ts)',
  ]);
});
