import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canTransition, REPORT_STATES } from '../../../src/modules/reports/lifecycle.js';

/** The whole transition table written out independently: every (from, to) pair is checked. */
const ALLOWED: Record<string, string> = {
  new: 'triaging accepted duplicate not_applicable spam informative',
  triaging: 'accepted duplicate not_applicable spam informative',
  accepted: 'fixing fixed triaging duplicate not_applicable spam informative',
  fixing: 'fixed accepted',
  fixed: 'disclosed fixing',
  disclosed: '',
  duplicate: 'triaging',
  not_applicable: 'triaging',
  spam: 'triaging',
  informative: 'triaging',
};

describe('report lifecycle matrix', () => {
  for (const from of REPORT_STATES) {
    it(`from ${from} allows exactly: ${ALLOWED[from] || 'nothing'}`, () => {
      const expected = new Set((ALLOWED[from] ?? '').split(' ').filter(Boolean));
      for (const to of REPORT_STATES) assert.equal(canTransition(from, to), expected.has(to), `${from} -> ${to}`);
    });
  }
});
