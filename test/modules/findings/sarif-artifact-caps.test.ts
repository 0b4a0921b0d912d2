import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ARTIFACT_MAX_DEPTH, ARTIFACT_MAX_LENGTH } from '../../../src/modules/findings/findings.artifact.js';
import { extractFindings } from '../../../src/modules/findings/findings.extract.js';

// Issue 33, part 3: artifact paths are cut to a length and a depth, the log says how many were, and
// finding a path's root walks no more than the kept depth. The deep-path log of the issue (50 URIs
// of 10,000 segments) is pushed against a running server in test/e2e/availability-evidence.test.ts.

const at = (uri: string, i: number) => ({
  ruleId: 'r',
  message: { text: 'm' },
  partialFingerprints: { k: String(i) },
  locations: [{ physicalLocation: { artifactLocation: { uri } } }],
});
const log = (uris: string[], run: Record<string, unknown> = {}) => ({
  version: '2.1.0',
  runs: [{ tool: { driver: { name: 'scanner', rules: [] } }, results: uris.map(at), ...run }],
});
const deep = (segments: number, prefix = 'file:///ci/') => `${prefix}${Array.from({ length: segments }, (_, i) => `d${i}`).join('/')}/x.js`;

describe('SARIF artifact paths are capped', () => {
  it('cuts a path of 10,000 segments to the kept depth, ending with a digest of the whole path', () => {
    const a = deep(10_000);
    const b = `${deep(9_999)}/other.js`;
    const out = extractFindings(log([a, b], { invocations: [{ executionSuccessful: true, workingDirectory: { uri: 'file:///ci/' } }] }));
    const [fa, fb] = out.byTool.get('scanner') ?? [];
    assert.equal(out.artifactsCapped, 2);
    const kept = Array.from({ length: ARTIFACT_MAX_DEPTH }, (_, i) => `d${i}`).join('/');
    assert.match(fa?.artifactUri ?? '', new RegExp(`^${kept}…#[0-9a-f]{16}$`));
    assert.ok((fa?.artifactUri ?? '').length <= ARTIFACT_MAX_LENGTH + 18);
    assert.notEqual(fa?.artifactUri, fb?.artifactUri, 'two paths sharing their kept part stay two artifacts');
    assert.notEqual(fa?.fingerprint, fb?.fingerprint);
  });

  it('cuts a long flat path to the kept length', () => {
    const name = 'n'.repeat(5000);
    const out = extractFindings(log([`src/${name}.js`]));
    const f = (out.byTool.get('scanner') ?? [])[0];
    assert.equal(out.artifactsCapped, 1);
    assert.equal(f?.artifactUri?.slice(0, ARTIFACT_MAX_LENGTH), `src/${name}`.slice(0, ARTIFACT_MAX_LENGTH));
    assert.match(f?.artifactUri ?? '', /…#[0-9a-f]{16}$/);
  });

  it('leaves paths within the caps whole and counts none', () => {
    const out = extractFindings(log([deep(ARTIFACT_MAX_DEPTH - 2, 'file:///ci/'), 'file:///elsewhere/a.js']), { sourceRoot: '/ci' });
    assert.equal(out.artifactsCapped, 0);
    assert.deepEqual(
      (out.byTool.get('scanner') ?? []).map((f) => f.artifactUri),
      [`${Array.from({ length: ARTIFACT_MAX_DEPTH - 2 }, (_, i) => `d${i}`).join('/')}/x.js`, 'file:///elsewhere/a.js'],
    );
  });

  it('finds the longest root among nested roots inside a deep path', () => {
    const uri = deep(10_000);
    const roots = ['file:///ci/', 'file:///ci/d0/d1/', 'file:///ci/d0/d1/d2/d3/', 'file:///ci/d0/dX/'];
    const out = extractFindings(log([uri], { invocations: roots.map((r) => ({ executionSuccessful: true, workingDirectory: { uri: r } })) }));
    const f = (out.byTool.get('scanner') ?? [])[0];
    assert.ok(f?.artifactUri?.startsWith('d4/d5/'), f?.artifactUri?.slice(0, 20));
  });
});
