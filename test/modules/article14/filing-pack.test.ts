import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filingPack, type PackSource } from '../../../src/modules/article14/filing-pack.js';

const src: PackSource = {
  manufacturer: 'Acme GmbH',
  securityEmail: 'psirt@acme.test',
  basis: 'actively_exploited_vulnerability',
  productName: 'Thermostat T2 2.3',
  description: 'Forged session cookie accepted',
  impact: 'admin takeover',
  vulnerabilityType: 'authentication_bypass',
  cvssVector: 'CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  severity: 'high',
  cwe: 'CWE-287',
  memberStates: ['DE', 'AT'],
  exploitationEvidence: 'seen in honeypot logs',
  awareAt: '2026-11-20T08:00:00.000Z',
  fixAvailableAt: null,
};
const byLabel = (fields: { label: string; value: string | null }[]) => Object.fromEntries(fields.map((f) => [f.label, f.value]));

describe('filingPack', () => {
  it('pre-fills the early warning of an exploited vulnerability with Member States and evidence', () => {
    const p = byLabel(filingPack('early_warning', src));
    assert.equal(p['Member States where the product is available'], 'DE, AT');
    assert.equal(p['Actively exploited vulnerability'], 'seen in honeypot logs');
    assert.equal(p['Became aware at'], '2026-11-20T08:00:00.000Z');
  });
  it('leaves what only the company knows empty, with a hint', () => {
    const fields = filingPack('notification', src);
    const measures = fields.find((f) => f.label === 'Corrective or mitigating measures taken');
    assert.equal(measures?.value, null);
    assert.ok(measures?.hint);
    assert.equal(byLabel(fields)['General nature of the exploit and of the vulnerability'], 'authentication_bypass | CWE-287 | Forged session cookie accepted');
  });
  it('asks incidents about malicious acts and root cause instead', () => {
    const inc = { ...src, basis: 'severe_incident' as const };
    assert.ok('Unlawful or malicious acts suspected' in byLabel(filingPack('early_warning', inc)));
    assert.equal(byLabel(filingPack('final_report', inc))['Type of threat or root cause'], 'authentication_bypass, CWE-287');
    assert.equal(byLabel(filingPack('final_report', src))['Security update or other corrective measure'], null);
  });
});
