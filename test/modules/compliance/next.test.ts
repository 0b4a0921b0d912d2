import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Assessment } from '../../../src/modules/compliance/evaluate.js';
import { CRA_FULL_APPLICATION, nextDeadline, nextTask } from '../../../src/modules/compliance/next.js';

const a = (requirementId: string, verdict: Assessment['verdict'], productId = 'p1'): Assessment => ({
  requirementId,
  productId,
  verdict,
  reason: `${requirementId} ${verdict}`,
  action: verdict === 'gap' || verdict === 'not_assessed' ? `do ${requirementId}` : null,
  attestation: null,
});

describe('nextTask', () => {
  it('puts an overdue Article 14 stage before everything else, gathering the products it concerns', () => {
    const t = nextTask([
      a('cra-ai-p2-1', 'gap', 'p1'),
      a('cra-art14-reporting', 'gap', 'p1'),
      a('cra-art14-reporting', 'gap', 'p2'),
      a('cra-ai-p1-2b', 'not_assessed'),
    ]);
    assert.equal(t?.requirementId, 'cra-art14-reporting');
    assert.deepEqual(t?.productIds, ['p1', 'p2']);
    assert.equal(t?.why, 'gap: cra-art14-reporting gap');
    assert.equal(t?.remaining, 2);
  });
  it('prefers any gap to an unassessed requirement, and exploitation to missing SBOMs', () => {
    assert.equal(nextTask([a('cra-ai-p1-1', 'not_assessed'), a('cra-ai-p2-3', 'gap')])?.requirementId, 'cra-ai-p2-3');
    assert.equal(nextTask([a('cra-ai-p2-1', 'gap'), a('cra-ai-p1-2a', 'gap')])?.requirementId, 'cra-ai-p1-2a');
  });
  it('answers null when nothing is open', () => {
    assert.equal(nextTask([a('cra-ai-p2-1', 'met'), a('cra-ai-p2-3', 'not_applicable')]), null);
  });
});

describe('nextDeadline', () => {
  const now = new Date('2026-11-22T12:00:00Z');
  it('is the full application date when nothing sooner is pending', () => {
    const d = nextDeadline([], now);
    assert.equal(d?.kind, 'cra_full_application');
    assert.equal(d?.at.toISOString(), CRA_FULL_APPLICATION.toISOString());
    assert.equal(d?.overdue, false);
  });
  it('picks the soonest, counting an overdue Article 14 stage and skipping other past dates', () => {
    const d = nextDeadline(
      [
        { kind: 'security_txt_expiry', at: new Date('2027-03-01T00:00:00Z'), what: 'security.txt expires' },
        { kind: 'attestation_expiry', at: new Date('2026-11-01T00:00:00Z'), what: 'an old attestation expired' },
        { kind: 'article14_stage', at: new Date('2026-11-22T08:00:00Z'), what: 'early warning', reportId: 'r1' },
        { kind: 'support_period_end', at: new Date('2026-12-01T00:00:00Z'), what: 'support ends', productId: 'p1' },
      ],
      now,
    );
    assert.equal(d?.kind, 'article14_stage');
    assert.equal(d?.overdue, true);
    assert.equal(d?.reportId, 'r1');
    const later = nextDeadline([{ kind: 'support_period_end', at: new Date('2026-12-01T00:00:00Z'), what: 'support ends' }], now);
    assert.equal(later?.kind, 'support_period_end');
  });
  it('has nothing after full application when nothing else is pending', () => {
    assert.equal(nextDeadline([], new Date('2028-01-01T00:00:00Z')), null);
  });
});
