import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { REQUIREMENTS } from '../../../src/modules/compliance/catalog.js';
import { evaluate, summarise } from '../../../src/modules/compliance/evaluate.js';
import type { CompanyEvidence, ProductEvidence } from '../../../src/modules/compliance/evidence.js';

const now = new Date('2026-11-22T12:00:00Z');
const daysAgo = (n: number) => new Date(now.getTime() - n * 86_400_000);

const product = (over: Partial<ProductEvidence> = {}): ProductEvidence => ({
  id: 'p-good',
  identifier: 'good',
  name: 'Good',
  category: 'default',
  placedOnMarketAt: new Date('2026-01-01T00:00:00Z'),
  supportEndsAt: new Date('2032-01-01T00:00:00Z'),
  supportJustification: null,
  lastSbomAt: daysAgo(3),
  sbomIdentifiedShare: 1,
  lastScanAt: daysAgo(2),
  openFindings: { critical: 0, high: 0, medium: 4, low: 9 },
  exploitedUnfixed: 0,
  knownVulns: { kev: 0, other: 0 },
  fixedWithoutAdvisory: 0,
  upstream: { thirdParty: 0, unnotified: 0 },
  ...over,
});
const company = (over: Partial<CompanyEvidence> = {}): CompanyEvidence => ({
  policyPublished: true,
  securityEmail: 'psirt@acme.test',
  untriagedOverdue: 0,
  untriagedTotal: 1,
  article14Overdue: 0,
  article14FiledLate: 0,
  attestations: [],
  products: [product()],
  ...over,
});
const verdicts = (c: CompanyEvidence, productId = 'p-good') =>
  Object.fromEntries(
    evaluate(c, now)
      .filter((a) => a.productId === productId)
      .map((a) => [a.requirementId, a.verdict]),
  );

describe('evaluate', () => {
  it('meets every evidence-based requirement for a well-kept product, and leaves attestations open', () => {
    const v = verdicts(company());
    for (const id of [
      'cra-ai-p1-2a',
      'cra-ai-p2-1',
      'cra-ai-p2-2',
      'cra-ai-p2-3',
      'cra-ai-p2-5',
      'cra-ai-p2-6',
      'cra-art13-8-support',
      'cra-art13-17-contact',
      'cra-art13-5-components',
      'cra-art14-reporting',
      'cra-aii-2-contact',
      'cra-aii-7-support-end',
    ]) {
      assert.equal(v[id], 'met', id);
    }
    for (const id of ['cra-ai-p1-1', 'cra-ai-p1-2b', 'cra-ai-p2-7', 'cra-art13-13-docs', 'cra-ai-p2-4']) assert.equal(v[id], 'not_assessed', id);
  });

  it('gives the exact gaps of a neglected product, each with its closing action', () => {
    const neglected = product({
      id: 'p-bad',
      identifier: 'bad',
      lastSbomAt: daysAgo(200),
      sbomIdentifiedShare: 0.4,
      lastScanAt: null,
      openFindings: { critical: 1, high: 2, medium: 0, low: 0 },
      supportEndsAt: new Date('2027-06-01T00:00:00Z'),
      fixedWithoutAdvisory: 2,
    });
    const list = evaluate(company({ products: [neglected], securityEmail: null, untriagedOverdue: 3, article14Overdue: 1 }), now);
    const gaps = list.filter((a) => a.verdict === 'gap').map((a) => [a.requirementId, a.reason]);
    assert.deepEqual(Object.fromEntries(gaps), {
      'cra-ai-p1-2a': '1 critical and 2 high open finding(s)',
      'cra-ai-p2-1': 'the latest SBOM is 200 days old (more than 90)',
      'cra-ai-p2-2': '3 report(s) waiting for triage longer than 7 days',
      'cra-ai-p2-3': 'no security scan has been pushed for this product',
      'cra-ai-p2-4': '2 fixed report(s) without a published advisory',
      'cra-ai-p2-6': 'no security contact e-mail is set',
      'cra-art13-17-contact': 'only automated channels: no security contact e-mail is set',
      'cra-art13-8-support': 'support ends 2027-06-01, less than five years, without a justification',
      'cra-art13-5-components': 'only 40 % of components carry a purl or CPE',
      'cra-art14-reporting': '1 Article 14 stage(s) overdue',
      'cra-aii-2-contact': 'no security contact e-mail is set',
    });
    for (const a of list.filter((x) => x.verdict === 'gap')) assert.ok(a.action && a.action.length > 10, a.requirementId);
  });

  it('changes the right verdict when evidence changes', () => {
    const before = verdicts(company({ products: [product({ lastSbomAt: null, sbomIdentifiedShare: null })] }));
    assert.equal(before['cra-ai-p2-1'], 'gap');
    const after = verdicts(company({ products: [product({ lastSbomAt: daysAgo(0) })] }));
    assert.equal(after['cra-ai-p2-1'], 'met');
    assert.equal(verdicts(company({ products: [product({ openFindings: { critical: 0, high: 1, medium: 0, low: 0 } })] }))['cra-ai-p1-2a'], 'gap');
    assert.equal(verdicts(company({ products: [product({ exploitedUnfixed: 1 })] }))['cra-ai-p1-2a'], 'gap');
  });

  it('reads known vulnerabilities for Part I (2)(a): KEV ones before findings, the rest after them', () => {
    const reason = (over: Partial<ProductEvidence>) =>
      evaluate(company({ products: [product(over)] }), now).find((a) => a.requirementId === 'cra-ai-p1-2a' && a.productId === 'p-good')?.reason;
    assert.equal(
      reason({ knownVulns: { kev: 1, other: 3 }, openFindings: { critical: 1, high: 0, medium: 0, low: 0 } }),
      '1 known exploited vulnerability (CISA KEV) in components of the latest SBOM, untriaged or exploitable',
    );
    assert.equal(
      reason({ knownVulns: { kev: 0, other: 3 }, openFindings: { critical: 1, high: 0, medium: 0, low: 0 } }),
      '1 critical and 0 high open finding(s)',
    );
    assert.equal(reason({ knownVulns: { kev: 0, other: 3 } }), '3 known vulnerabilities in components of the latest SBOM, untriaged or exploitable');
    assert.equal(verdicts(company({ products: [product({ knownVulns: { kev: 0, other: 0 } })] }))['cra-ai-p1-2a'], 'met');
  });

  it('takes attestations for what software cannot see, per product or for all, until they expire', () => {
    const att = (over: object) => ({
      requirementId: 'cra-ai-p1-2b',
      productId: null,
      verdict: 'met' as const,
      note: 'defaults reviewed',
      evidenceUrl: null,
      author: 'ciso@acme.test',
      attestedAt: daysAgo(10),
      expiresAt: null,
      ...over,
    });
    assert.equal(verdicts(company({ attestations: [att({})] }))['cra-ai-p1-2b'], 'met');
    assert.equal(verdicts(company({ attestations: [att({ productId: 'other' })] }))['cra-ai-p1-2b'], 'not_assessed');
    assert.equal(verdicts(company({ attestations: [att({ expiresAt: daysAgo(1) })] }))['cra-ai-p1-2b'], 'not_assessed');
    const na = verdicts(
      company({
        attestations: [att({ requirementId: 'cra-ai-p2-3', verdict: 'not_applicable', note: 'no software of ours in it' })],
        products: [product({ lastScanAt: null })],
      }),
    );
    assert.equal(na['cra-ai-p2-3'], 'not_applicable', 'a justified not-applicable overrides missing evidence');
    const a = evaluate(company({ attestations: [att({})] }), now).find((x) => x.requirementId === 'cra-ai-p1-2b');
    assert.equal(a?.attestation?.author, 'ciso@acme.test');
    assert.equal(a?.action, null);
  });

  it('accepts a short support period when it is justified', () => {
    const v = verdicts(
      company({ products: [product({ supportEndsAt: new Date('2028-01-01T00:00:00Z'), supportJustification: 'single-season event badge' })] }),
    );
    assert.equal(v['cra-art13-8-support'], 'met');
  });

  it('summarises with a score over the applicable requirements', () => {
    const list = evaluate(company(), now);
    const s = summarise(list);
    assert.equal(s.met + s.gap + s.not_applicable + s.not_assessed, REQUIREMENTS.length);
    assert.equal(s.score, Math.round((s.met / (s.met + s.gap + s.not_assessed)) * 100));
    assert.deepEqual(summarise([]), { met: 0, gap: 0, not_applicable: 0, not_assessed: 0, score: 100 });
  });
});

describe('OSCAL assessment results', () => {
  it('validates against the official schema, with findings targeting catalog statements and stable UUIDs', async () => {
    const { oscalAssessmentResults } = await import('../../../src/modules/compliance/oscal-results.js');
    const { compileSchema } = await import('../../helpers/json-schema.js');
    const validate = compileSchema('oscal/oscal_assessment-results_schema.json');
    const c = company({
      attestations: [
        {
          requirementId: 'cra-ai-p2-3',
          productId: null,
          verdict: 'not_applicable',
          note: 'hardware only',
          evidenceUrl: 'https://docs.acme.test/na',
          author: 'ciso@acme.test',
          attestedAt: daysAgo(1),
          expiresAt: null,
        },
      ],
      securityEmail: null,
    });
    const refs = [{ id: 'p-good', identifier: 'good', name: 'Good' }];
    const doc = oscalAssessmentResults(refs, evaluate(c, now), now, 'https://cradle.example/api/v1/compliance/mappings');
    assert.ok(validate(doc), JSON.stringify(validate.errors?.slice(0, 3)));
    const result = (doc['assessment-results'] as { results: { findings: { target: { 'target-id': string; status: { state: string } } }[] }[] }).results[0];
    const byTarget = Object.fromEntries((result?.findings ?? []).map((f) => [f.target['target-id'], f.target.status.state]));
    assert.equal(byTarget['cra-art13-17-contact_smt'], 'not-satisfied');
    assert.equal(byTarget['cra-ai-p2-1_smt'], 'satisfied');
    assert.equal(byTarget['cra-ai-p2-3_smt'], 'satisfied', 'not applicable, with its justification');
    assert.equal(byTarget['cra-ai-p1-2b_smt'], undefined, 'not assessed: no finding');
    const again = oscalAssessmentResults(refs, evaluate(c, new Date(now.getTime() + 60_000)), new Date(now.getTime() + 60_000), 'x');
    assert.equal(
      JSON.stringify((again['assessment-results'] as { results: { findings: { uuid: string }[] }[] }).results[0]?.findings.map((f) => f.uuid)),
      JSON.stringify(result && (result as unknown as { findings: { uuid: string }[] }).findings.map((f) => f.uuid)),
    );
  });
});
