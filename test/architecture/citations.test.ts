import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, normalize, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

/**
 * A comment in `src/` cites what a reader of this repository can open: docs/, README.md, an ADR,
 * an issue, or a published standard. Citations of the documents the project was written from (a
 * spec or contract section, reference/*.md, conventions.md, anything under ../shared) name pages
 * that are not here; docs/ states the same rules in its own words.
 */
const SRC = normalize(join(import.meta.dirname, '..', '..', 'src'));

const OUTSIDE = [
  /\bspec\s*["'“]/i, // spec "Limits"
  /\bcontract\s*["'“]/i, // contract "Reports"
  /\bspec rules?\b/i, // spec Rule 3
  /\((?:spec|contract)\b/i, // (spec Errors ...), (contract)
  /\b(?:spec|contract):/i, // Spec: "Revocation is ...", contract: API key -> 401
  /\bthe (?:spec|contract)\b/i, // the spec's order, the contract's rule
  /\breference\//i, // reference/cra.md
  /conventions\.md/i,
  /interface-spec/i,
  /\.\.\/shared\b/,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every comment of a TypeScript file with the line it starts on (the parser's view, so strings and templates are not comments). */
export function commentsOf(text: string): { line: number; text: string }[] {
  const file = ts.createSourceFile('x.ts', text, ts.ScriptTarget.Latest, false);
  const seen = new Map<number, string>();
  const collect = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node) => {
    collect(ts.getLeadingCommentRanges(text, node.getFullStart()));
    collect(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  visit(file);
  collect(ts.getLeadingCommentRanges(text, file.endOfFileToken.getFullStart()));
  return [...seen].map(([pos, t]) => ({ line: file.getLineAndCharacterOfPosition(pos).line + 1, text: t }));
}

/** The citations of documents outside the repository in one file's comments, as `file:line: text`. */
export function outsideCitations(path: string, text: string): string[] {
  const found: string[] = [];
  for (const c of commentsOf(text)) {
    // A multi-line comment is read as one text, so a citation broken across lines still counts.
    const flat = c.text.replace(/\s*\n\s*(?:\*(?!\/)|\/\/)?\s*/g, ' ');
    for (const re of OUTSIDE) {
      const m = re.exec(flat);
      if (!m) continue;
      found.push(`${path}:${c.line}: …${flat.slice(Math.max(0, m.index - 30), m.index + 50)}…`);
      break;
    }
  }
  return found;
}

test('the comments of src/ cite documents of this repository, not the ones it was written from', () => {
  const found = sourceFiles(SRC).flatMap((f) => outsideCitations(relative(join(SRC, '..'), f), readFileSync(f, 'utf8')));
  assert.deepEqual(found, [], `cite docs/ instead (docs/api.md "Limits"):\n${found.join('\n')}`);
});

/** The sections cited as `docs/x.md "Title"` (or `README "Title"`, several as `"A", "B" and "C"`) whose file has no heading or paragraph starting with that title. */
export function missingSections(path: string, text: string, headingsOf: (doc: string) => string[] | undefined): string[] {
  const missing: string[] = [];
  for (const c of commentsOf(text)) {
    const flat = c.text.replace(/\s*\n\s*(?:\*(?!\/)|\/\/)?\s*/g, ' ');
    for (const m of flat.matchAll(/\b(docs\/[\w./-]+\.md|README(?:\.md)?) ((?:"[^"]+"(?:,? (?:and )?)?)+)/g)) {
      const doc = (m[1] as string).startsWith('README') ? 'README.md' : (m[1] as string);
      const headings = headingsOf(doc);
      for (const [, title] of (m[2] as string).matchAll(/"([^"]+)"/g)) {
        if (!headings?.some((h) => h.startsWith(title as string))) missing.push(`${path}:${c.line}: ${doc} "${title}"`);
      }
    }
  }
  return missing;
}

const headingCache = new Map<string, string[] | undefined>();
function headingsOf(doc: string): string[] | undefined {
  if (!headingCache.has(doc)) {
    let text: string | undefined;
    try {
      text = readFileSync(join(SRC, '..', doc), 'utf8');
    } catch {
      text = undefined;
    }
    // Headings, and the first line of each paragraph: a lead-in such as "Memory and the event loop:" or "**Counters.**" names a section too.
    const lines = text?.split('\n');
    const starts = lines?.flatMap((l, i) => (/^#{1,6} /.test(l) || (l.trim() !== '' && (i === 0 || lines[i - 1]?.trim() === '')) ? [l] : []));
    headingCache.set(
      doc,
      starts?.map((l) => l.replace(/^#+ /, '').replaceAll('`', '').replaceAll('**', '')),
    );
  }
  return headingCache.get(doc);
}

test('every section a comment of src/ cites is a heading or a paragraph lead-in of that document', () => {
  const missing = sourceFiles(SRC).flatMap((f) => missingSections(relative(join(SRC, '..'), f), readFileSync(f, 'utf8'), headingsOf));
  assert.deepEqual(missing, [], `no such heading:\n${missing.join('\n')}`);
});

test('the check sees citations in block, line and trailing comments, and none in code', () => {
  const text = [
    '/** A page of at most 100 (spec "Limits"). */',
    'const a = 1; // contract "Reports"',
    '/*',
    ' * as the',
    ' * spec Rule 3 says',
    ' */',
    'const s = \'spec "Limits" in a string is no comment\';',
    '// docs/api.md "Limits"',
  ].join('\n');
  assert.deepEqual(
    outsideCitations('x.ts', text).map((l) => l.split(': ')[0]),
    ['x.ts:1', 'x.ts:2', 'x.ts:3'],
  );
  const docs = (doc: string) => (doc === 'docs/api.md' ? ['Limits in the schemas', 'Errors'] : undefined);
  assert.deepEqual(missingSections('x.ts', '/** docs/api.md "Limits", "Errors" and "Paging"; docs/no.md "X" */', docs), [
    'x.ts:1: docs/api.md "Paging"',
    'x.ts:1: docs/no.md "X"',
  ]);
});
