import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/kernel/errors.js';
import { scoreCvss, severityOf } from '../../../src/modules/reports/cvss.js';

describe('scoreCvss', () => {
  it('scores known 3.1 vectors as FIRST publishes them', () => {
    assert.deepEqual(scoreCvss('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H'), {
      version: '3.1',
      vector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      baseScore: 9.8,
      severity: 'critical',
    });
    assert.equal(scoreCvss('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:C/C:L/I:L/A:N').baseScore, 6.1); // the classic reflected XSS
    assert.equal(scoreCvss('CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H').severity, 'high'); // 7.8
  });
  it('scores 4.0 vectors', () => {
    const s = scoreCvss('CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N');
    assert.equal(s.version, '4.0');
    assert.equal(s.baseScore, 9.3);
    assert.equal(s.severity, 'critical');
  });
  it('refuses partial, unknown, duplicated and foreign vectors instead of scoring them 0', () => {
    const refused = (v: string, why: RegExp) =>
      assert.throws(
        () => scoreCvss(v),
        (e: unknown) => e instanceof AppError && e.code === 'VALIDATION' && why.test(e.message),
        v,
      );
    refused('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H', /missing base metrics: A$/);
    refused('CVSS:4.0/AV:N/AC:L', /missing base metrics: AT, PR/);
    refused('CVSS:3.1/AV:Q/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /Unknown component value Q/);
    refused('CVSS:3.1/AV:N/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /twice/);
    refused('CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', /3\.1 or 4\.0/);
    refused('AV:N/AC:L/Au:N/C:P/I:P/A:P', /3\.1 or 4\.0/);
    refused('CVSS:3.1/AV:N/AC', /malformed/);
  });
  it('maps scores to the qualitative bands', () => {
    assert.deepEqual([0, 0.1, 3.9, 4, 6.9, 7, 8.9, 9, 10].map(severityOf), ['none', 'low', 'low', 'medium', 'medium', 'high', 'high', 'critical', 'critical']);
  });
});
