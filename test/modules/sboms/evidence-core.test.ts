import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maxNesting } from '../../../src/kernel/json-document.js';
import { extractFindings } from '../../../src/modules/findings/findings.extract.js';
import { parseSecuritySeverity, resolveLevel, severityOf } from '../../../src/modules/findings/findings.severity.js';
import { AppError } from '../../../src/kernel/errors.js';
import { validateSbom } from '../../../src/modules/sboms/sboms.validate.js';
import { type DiffComponent, diffComponents, identityOf } from '../../../src/modules/sboms/sboms.diff.js';
import { classify } from '../../../src/modules/sboms/sboms.normalised.js';
import { bareComponent } from '../../helpers/evidence.js';

const comp = (name: string, version: string | null, over: Partial<DiffComponent> = {}): DiffComponent => ({
  group: null,
  name,
  version,
  purl: version ? `pkg:npm/${name}@${version}` : null,
  cpe: null,
  licenses: [],
  hashes: [],
  supplier: null,
  ...over,
});

describe('maxNesting', () => {
  it('counts brackets outside strings only, including escaped quotes', () => {
    assert.equal(maxNesting(Buffer.from('{"a":[1,{"b":"[[[{{{"}],"c":"\\"[["}'), 10), 3);
    assert.equal(maxNesting(Buffer.from('[[[[]]]]'), 3), -1);
    assert.equal(maxNesting(Buffer.from('"just a string"'), 1), 0);
  });

  it('ends a string at a quote after an even run of backslashes only', () => {
    assert.equal(maxNesting(Buffer.from(String.raw`{"a":"\\","b":[[1]]}`), 10), 3);
    assert.equal(maxNesting(Buffer.from(String.raw`{"a":"\"[[[[","b":[1]}`), 10), 2);
    assert.equal(maxNesting(Buffer.from(String.raw`["\\\\",[[[1]]]]`), 3), -1);
    assert.equal(maxNesting(Buffer.from('{"unterminated": "[[[['), 10), 1);
  });
});

describe("schema uniqueItems (linear replacement of ajv's pairwise check)", () => {
  it('still refuses duplicate items, equal regardless of key order, and accepts distinct ones', () => {
    const bom = (components: object[]) => ({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components });
    const a = { type: 'library', name: 'a', version: '1' };
    const aReordered = { version: '1', name: 'a', type: 'library' };
    assert.throws(
      () => validateSbom('cyclonedx', '1.6', bom([a, { ...a, name: 'b' }, aReordered])),
      (e: unknown) => {
        assert.ok(e instanceof AppError);
        assert.deepEqual(e.extra.issues?.[0], { path: '/components', message: 'must NOT have duplicate items (items 0 and 2 are identical)' });
        return true;
      },
    );
    validateSbom('cyclonedx', '1.6', bom([a, { ...a, version: '2' }]));
  });

  it('tells apart items equal at the top level that differ deeper, and finds deep duplicates', () => {
    const bom = (components: object[]) => ({ bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components });
    const withHash = (content: string, keysFirst = false) => {
      const hashes = [{ alg: 'SHA-256', content }];
      return keysFirst ? { hashes, name: 'a', type: 'library' } : { type: 'library', name: 'a', hashes };
    };
    validateSbom('cyclonedx', '1.6', bom([withHash('a'.repeat(64)), withHash('b'.repeat(64))]));
    assert.throws(
      () => validateSbom('cyclonedx', '1.6', bom([withHash('a'.repeat(64)), withHash('b'.repeat(64)), withHash('a'.repeat(64), true)])),
      (e: unknown) => {
        assert.ok(e instanceof AppError);
        assert.match(e.extra.issues?.[0]?.message ?? '', /items 0 and 2 are identical/);
        return true;
      },
    );
  });
});

describe('diffComponents', () => {
  it('pairs several versions of one package by version and reports the rest as added or removed', () => {
    const before = [comp('lodash', '4.17.20'), comp('lodash', '3.10.1'), comp('left-pad', '1.0.0')];
    const after = [comp('lodash', '4.17.21'), comp('lodash', '3.10.1'), comp('lodash', '2.4.2')];
    const d = diffComponents(before, after);
    assert.deepEqual(
      d.changed.map((c) => `${c.before.version}->${c.after.version}`),
      ['4.17.20->4.17.21'],
    );
    assert.deepEqual(
      d.added.map((c) => c.version),
      ['2.4.2'],
    );
    assert.deepEqual(
      d.removed.map((c) => c.name),
      ['left-pad'],
    );
  });

  it('keys on the purl without version, qualifiers or subpath, and on group and name without one', () => {
    assert.equal(identityOf(comp('x', '1', { purl: 'pkg:npm/%40scope/x@1.2.3?arch=x64#lib' })), 'purl:pkg:npm/%40scope/x');
    assert.equal(identityOf(comp('x', '1', { purl: 'pkg:npm/@scope/x@1.2.3' })), 'purl:pkg:npm/@scope/x');
    assert.equal(identityOf(comp('x', '1', { purl: null, group: 'org.acme' })), 'name:org.acme/x');
  });

  it('reports a changed hash, licence or supplier on the same version, and nothing for identical lists', () => {
    const a = comp('zlib', '1.3.1', { hashes: [{ alg: 'SHA-256', content: 'aa' }], licenses: ['Zlib'] });
    const b = { ...a, hashes: [{ alg: 'SHA-256', content: 'bb' }], supplier: 'Acme' };
    assert.deepEqual(diffComponents([a], [b]).changed[0]?.fields, ['hashes', 'supplier']);
    assert.deepEqual(diffComponents([a, b], [b, a]), { added: [], removed: [], changed: [] });
  });
});

describe('classify', () => {
  it('marks direct, transitive and unknown components and survives cycles', () => {
    const c = (ref: string) => bareComponent(ref);
    const list = [c('a'), c('b'), c('c'), c('island')];
    classify(
      list,
      [
        ['root', 'a'],
        ['a', 'b'],
        ['b', 'a'],
        ['b', 'c'],
        ['root', 'c'],
      ],
      'root',
    );
    assert.deepEqual(
      list.map((x) => x.relationship),
      ['direct', 'transitive', 'direct', 'unknown'],
    );
  });
});

describe('SARIF severity and extraction', () => {
  it('maps security-severity bands and levels', () => {
    assert.deepEqual(
      [9, 8.9, 7, 6.9, 4, 3.9, 0.1, 0].map((n) => severityOf('none', n)),
      ['critical', 'high', 'high', 'medium', 'medium', 'low', 'low', 'info'],
    );
    assert.deepEqual(
      (['error', 'warning', 'note', 'none'] as const).map((l) => severityOf(l, null)),
      ['high', 'medium', 'low', 'info'],
    );
    assert.equal(resolveLevel(undefined, undefined), 'warning');
    assert.equal(resolveLevel(undefined, 'note'), 'note');
    assert.deepEqual([parseSecuritySeverity('7.5'), parseSecuritySeverity(11), parseSecuritySeverity('high')], [7.5, null, null]);
  });

  it('makes Windows and uriBaseId locations checkout-independent, fills message arguments and honours rejected suppressions', () => {
    const log = (root: string) => ({
      version: '2.1.0',
      runs: [
        {
          tool: { driver: { name: 'T', rules: [{ id: 'r1', messageStrings: { m: { text: 'uses {0}' } } }] } },
          originalUriBaseIds: { WS: { uri: `file:///${root}/` } },
          results: [
            {
              ruleId: 'r1',
              message: { id: 'm', arguments: ['md5'] },
              locations: [{ physicalLocation: { artifactLocation: { uri: `file:///${root}/src/a.c` }, region: { startLine: 3 } } }],
            },
            {
              ruleId: 'r1',
              message: { text: 'x' },
              suppressions: [{ kind: 'external', status: 'rejected' }],
              locations: [{ physicalLocation: { artifactLocation: { uri: 'b.c', uriBaseId: 'SRC' } } }],
            },
          ],
        },
      ],
    });
    const a = extractFindings(log('C:/agent/_work/1/s')).byTool.get('T') ?? [];
    const b = extractFindings(log('home/runner/work/repo')).byTool.get('T') ?? [];
    assert.deepEqual(
      a.map((f) => [f.artifactUri, f.message]),
      [
        ['src/a.c', 'uses md5'],
        ['%SRC%/b.c', 'x'],
      ],
    );
    assert.deepEqual(
      a.map((f) => f.fingerprint),
      b.map((f) => f.fingerprint),
    );
    const windows = extractFindings(log('x'), { sourceRoot: 'C:\\agent\\_work\\1\\s' });
    assert.equal(windows.byTool.get('T')?.[0]?.artifactUri, 'x/src/a.c'.replace('x/', ''), 'sourceRoot given as a Windows path');
  });
});
