import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { expandMessage, extractFindings, MESSAGE_MAX } from '../../../src/modules/findings/findings.extract.js';
import { type DiffComponent, diffComponents, identityOf, type SbomDiff } from '../../../src/modules/sboms/sboms.diff.js';
import { normaliseCycloneDx } from '../../../src/modules/sboms/sboms.normalise-cyclonedx.js';

// Issue 24, findings 1 and 3: each case at the size the review used. Before the fixes the message
// case exhausted the heap and the others ran for seconds to a minute; the timeouts turn a
// regression into a failure instead of a hung suite.

const sarif = (run: Record<string, unknown>) => ({ version: '2.1.0', runs: [{ tool: { driver: { name: 'scanner', rules: [] } }, results: [], ...run }] });

describe('SARIF message expansion is bounded by what is stored', () => {
  it('fills a rule text of 100,000 placeholders with 1,000-character arguments in 50 results', { timeout: 20_000 }, () => {
    const arg = 'A'.repeat(1000);
    const doc = sarif({
      tool: { driver: { name: 'scanner', rules: [{ id: 'r1', messageStrings: { m: { text: '{0}'.repeat(100_000) } } }] } },
      results: Array.from({ length: 50 }, (_, i) => ({ ruleId: 'r1', message: { id: 'm', arguments: [arg] }, partialFingerprints: { k: String(i) } })),
    });
    assert.ok(JSON.stringify(doc).length < 400_000, 'the log is small; its expansion was not');
    const findings = extractFindings(doc).byTool.get('scanner') ?? [];
    assert.equal(findings.length, 50);
    for (const f of findings) assert.equal(f.message, 'A'.repeat(MESSAGE_MAX));
  });

  it('expands as before within the bound: missing arguments stay, arguments are cut at 1,000 characters', () => {
    assert.equal(expandMessage('{0} and {1} but not {2}', ['x', 'y']), 'x and y but not {2}');
    assert.equal(expandMessage('no placeholders', []), 'no placeholders');
    assert.equal(expandMessage('[{0}]', ['b'.repeat(1500)]), `[${'b'.repeat(1000)}]`);
    assert.equal(expandMessage('t'.repeat(5000), []).length, MESSAGE_MAX);
  });
});

describe('SARIF root matching is per result, not per root', () => {
  it('relativises 40,000 results against 40,000 roots, the longest root winning', { timeout: 20_000 }, () => {
    const n = 40_000;
    const invocations = Array.from({ length: n }, (_, i) => ({ executionSuccessful: true, workingDirectory: { uri: `file:///ci/w${i}/` } }));
    invocations.push({ executionSuccessful: true, workingDirectory: { uri: 'file:///ci/w7/sub/' } });
    const results = Array.from({ length: n }, (_, i) => ({
      ruleId: 'r',
      message: { text: 'm' },
      partialFingerprints: { k: String(i) },
      locations: [{ physicalLocation: { artifactLocation: { uri: i === 7 ? 'file:///ci/w7/sub/deep/x.js' : `file:///ci/w${i}/src/f${i}.js` } } }],
    }));
    const findings = extractFindings(sarif({ invocations, results })).byTool.get('scanner') ?? [];
    assert.equal(findings.length, n);
    assert.equal(findings[0]?.artifactUri, 'src/f0.js');
    assert.equal(findings[7]?.artifactUri, 'deep/x.js');
    assert.equal(findings[n - 1]?.artifactUri, `src/f${n - 1}.js`);
  });

  it("keeps URIs outside every root whole and uses the pusher's sourceRoot", () => {
    const results = [
      { ruleId: 'r', message: { text: 'a' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'file:///elsewhere/a.js' } } }] },
      { ruleId: 'r', message: { text: 'b' }, locations: [{ physicalLocation: { artifactLocation: { uri: 'file:///build/app/b.js' } } }] },
    ];
    const f = extractFindings(sarif({ results }), { sourceRoot: '/build/app' }).byTool.get('scanner') ?? [];
    assert.deepEqual(
      f.map((x) => x.artifactUri),
      ['file:///elsewhere/a.js', 'b.js'],
    );
  });
});

/** The diff as it was before issue 24 (pairwise scans), kept as the reference the linear one must equal. */
function referenceDiff(before: DiffComponent[], after: DiffComponent[]): SbomDiff {
  const ref = (c: DiffComponent) => ({ name: c.group ? `${c.group}/${c.name}` : c.name, version: c.version, purl: c.purl });
  const hashKey = (c: DiffComponent) =>
    c.hashes
      .map((h) => `${h.alg}:${h.content}`)
      .sort()
      .join(',');
  const licKey = (c: DiffComponent) => [...c.licenses].sort().join(',');
  const changed = (a: DiffComponent, b: DiffComponent) => {
    const f: string[] = [];
    if (a.version !== b.version) f.push('version');
    if (a.purl !== b.purl) f.push('purl');
    if (a.cpe !== b.cpe) f.push('cpe');
    if (licKey(a) !== licKey(b)) f.push('licenses');
    if (a.hashes.length > 0 && b.hashes.length > 0 && hashKey(a) !== hashKey(b)) f.push('hashes');
    if (a.supplier !== b.supplier) f.push('supplier');
    return f;
  };
  const group = (l: DiffComponent[]) => {
    const m = new Map<string, DiffComponent[]>();
    for (const c of l) m.set(identityOf(c), [...(m.get(identityOf(c)) ?? []), c]);
    return m;
  };
  const byVersion = (a: DiffComponent, b: DiffComponent) => (b.version ?? '').localeCompare(a.version ?? '', 'en', { numeric: true });
  const out: SbomDiff = { added: [], removed: [], changed: [] };
  const old = group(before);
  for (const [key, news] of group(after)) {
    const olds = old.get(key) ?? [];
    old.delete(key);
    const unmatched = news.filter((n) => {
      const i = olds.findIndex((o) => o.version === n.version && changed(o, n).length === 0);
      if (i >= 0) olds.splice(i, 1);
      return i < 0;
    });
    const restNew: DiffComponent[] = [];
    for (const n of unmatched) {
      const i = olds.findIndex((o) => o.version === n.version);
      if (i < 0) restNew.push(n);
      else {
        const [o] = olds.splice(i, 1) as [DiffComponent];
        out.changed.push({ before: ref(o), after: ref(n), fields: changed(o, n) });
      }
    }
    restNew.sort(byVersion);
    olds.sort(byVersion);
    const pairs = Math.min(restNew.length, olds.length);
    for (let i = 0; i < pairs; i++)
      out.changed.push({
        before: ref(olds[i] as DiffComponent),
        after: ref(restNew[i] as DiffComponent),
        fields: changed(olds[i] as DiffComponent, restNew[i] as DiffComponent),
      });
    for (const n of restNew.slice(pairs)) out.added.push(ref(n));
    for (const o of olds.slice(pairs)) out.removed.push(ref(o));
  }
  for (const olds of old.values()) for (const o of olds) out.removed.push(ref(o));
  return out;
}

const component = fc.record({
  group: fc.constant(null),
  name: fc.constantFrom('a', 'b'),
  version: fc.option(fc.constantFrom('1.0.0', '1.0.1', '2.0.0'), { nil: null }),
  purl: fc.option(fc.constantFrom('pkg:npm/a@1.0.0', 'pkg:npm/a@2.0.0', 'pkg:npm/b@1.0.0'), { nil: null }),
  cpe: fc.option(fc.constant('cpe:2.3:a:x:y:1:*:*:*:*:*:*:*'), { nil: null }),
  licenses: fc.subarray(['MIT', 'ISC']),
  hashes: fc.subarray(
    [
      { alg: 'SHA-256', content: 'aa' },
      { alg: 'SHA-256', content: 'bb' },
    ],
    { maxLength: 1 },
  ),
  supplier: fc.option(fc.constant('Acme'), { nil: null }),
}) as fc.Arbitrary<DiffComponent>;

describe('SBOM diff in near-linear time', () => {
  it('answers exactly what the pairwise diff answered, on random versions of a few packages', () => {
    fc.assert(
      fc.property(fc.array(component, { maxLength: 12 }), fc.array(component, { maxLength: 12 }), (before, after) => {
        assert.deepEqual(diffComponents(before, after), referenceDiff(before, after));
      }),
      { numRuns: 3000 },
    );
  });

  it('diffs 16,000 components of one name', { timeout: 20_000 }, () => {
    const make = (v: string) =>
      Array.from({ length: 16_000 }, (_, i) => ({
        group: null,
        name: 'same',
        version: `${v}.${i}`,
        purl: null,
        cpe: null,
        licenses: [],
        hashes: [],
        supplier: null,
      }));
    const d = diffComponents(make('1'), make('2'));
    assert.equal(d.changed.length, 16_000);
    assert.deepEqual([d.added.length, d.removed.length], [0, 0]);
    const same = diffComponents(make('1'), make('1'));
    assert.deepEqual([same.added.length, same.removed.length, same.changed.length], [0, 0, 0]);
  });
});

describe('CycloneDX licences', () => {
  it('de-duplicates 60,000 licences of one component, keeping first-seen order', { timeout: 20_000 }, () => {
    const licenses = Array.from({ length: 60_000 }, (_, i) => ({ license: { id: `L${i % 30_000}` } }));
    const bom = { bomFormat: 'CycloneDX', specVersion: '1.6', version: 1, components: [{ type: 'library', name: 'x', licenses }] };
    const out = normaliseCycloneDx(bom).components[0]?.licenses ?? [];
    assert.equal(out.length, 30_000);
    assert.deepEqual(out.slice(0, 3), ['L0', 'L1', 'L2']);
  });
});
