import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { BulkItem } from '../../../src/modules/reports/file-report-batch.js';
import { checkArmouredPublicKey } from '../../../src/modules/reports/pgp-key.js';
import { REPORT_LIMITS, ReportFields, VULNERABILITY_TYPE_INFO, VULNERABILITY_TYPES } from '../../../src/modules/reports/reports.schemas.js';
import { ARMOURED_KEY } from '../../helpers/intake.js';

const issues = (input: unknown) => {
  const r = ReportFields.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('report field schema', () => {
  it('requires a non-blank description', () => {
    assert.deepEqual(issues({}), ['description: description is required']);
    assert.deepEqual(issues({ description: '  \n ' }), ['description: description must not be empty']);
    assert.deepEqual(issues({ description: 42 }), ['description: description must be a string']);
  });

  it('treats empty and blank optional fields, and JSON null, as not given', () => {
    const r = ReportFields.parse({
      description: 'd',
      productName: '',
      vulnerabilityType: '',
      stepsToReproduce: '  ',
      impact: null,
      contactEmail: '',
      pgpKey: '',
    });
    assert.deepEqual(JSON.parse(JSON.stringify(r)), { description: 'd' });
  });

  it('trims given optional text and keeps the description as typed', () => {
    const r = ReportFields.parse({ description: '  line 1\n  line 2\n', productName: '  T2 ', contactEmail: ' r@example.org ' });
    assert.equal(r.description, '  line 1\n  line 2\n');
    assert.equal(r.productName, 'T2');
    assert.equal(r.contactEmail, 'r@example.org');
  });

  it('limits field sizes in UTF-8 bytes, the description to exactly 64 KiB', () => {
    assert.deepEqual(issues({ description: 'a'.repeat(REPORT_LIMITS.description) }), []);
    assert.deepEqual(issues({ description: 'a'.repeat(REPORT_LIMITS.description + 1) }), ['description: description must be at most 64 KiB']);
    // 128 two-byte characters are 256 bytes: over the 255-byte product name limit.
    assert.deepEqual(issues({ description: 'd', productName: 'é'.repeat(128) }), ['productName: productName must be at most 255 bytes']);
    assert.deepEqual(issues({ description: 'd', productName: 'é'.repeat(127) }), []);
  });

  it('checks the e-mail syntax and the enumerated vulnerability type', () => {
    assert.deepEqual(issues({ description: 'd', contactEmail: 'not an address' }), ['contactEmail: contactEmail must be an e-mail address']);
    const [bad] = issues({ description: 'd', vulnerabilityType: 'sql' });
    assert.match(bad ?? '', /^vulnerabilityType: vulnerabilityType must be one of: memory_corruption, .*, other$/);
    for (const t of VULNERABILITY_TYPES) assert.deepEqual(issues({ description: 'd', vulnerabilityType: t }), [], t);
  });

  it('refuses unknown fields and wrong types', () => {
    assert.deepEqual(issues({ description: 'd', severity: 'high' }), [': Unrecognized key: "severity"']);
    assert.deepEqual(issues({ description: 'd', impact: 3 }), ['impact: impact must be a string']);
  });

  it('documents every vulnerability type, with "other" among them', () => {
    assert.ok(VULNERABILITY_TYPES.includes('other'));
    assert.deepEqual(Object.keys(VULNERABILITY_TYPE_INFO).sort(), [...VULNERABILITY_TYPES].sort());
    for (const t of VULNERABILITY_TYPES) assert.match(t, /^[a-z_]+$/);
  });
});

describe('JSON Schema of the shared schema (the source of the OpenAPI document)', () => {
  it('publishes the enumeration, the required fields and the descriptions', () => {
    const doc = z.toJSONSchema(BulkItem, { io: 'input', unrepresentable: 'any' }) as {
      $defs: Record<string, { required: string[]; properties: Record<string, { enum?: string[]; description?: string }> }>;
    };
    const item = doc.$defs.BulkSubmissionItem;
    assert.deepEqual(item?.required, ['description', 'slug']);
    assert.deepEqual(item?.properties.vulnerabilityType?.enum, [...VULNERABILITY_TYPES]);
    for (const [name, p] of Object.entries(item?.properties ?? {})) assert.ok(p.description, `${name} is described`);
  });
});

describe('OpenPGP public key recogniser', () => {
  it('accepts an armoured public key block, with or without headers and checksum', () => {
    assert.deepEqual(checkArmouredPublicKey(ARMOURED_KEY), { ok: true });
    assert.deepEqual(checkArmouredPublicKey(`\n${ARMOURED_KEY.replace('Comment: test key\n', '').replace('=q8Rt\n', '')}\r\n`), { ok: true });
    assert.deepEqual(issues({ description: 'd', pgpKey: ARMOURED_KEY }), []);
  });

  it('refuses junk, a missing END line, a signature block and, pointedly, a private key', () => {
    for (const s of [
      'hello',
      ARMOURED_KEY.replace('-----END PGP PUBLIC KEY BLOCK-----', ''),
      ARMOURED_KEY.replaceAll('PUBLIC KEY BLOCK', 'SIGNATURE'),
      ARMOURED_KEY.replace('mDME', 'm<ME'),
    ]) {
      assert.equal(checkArmouredPublicKey(s).ok, false, s.slice(0, 40));
    }
    const priv = checkArmouredPublicKey(ARMOURED_KEY.replaceAll('PUBLIC', 'PRIVATE'));
    assert.equal(priv.ok, false);
    assert.match(priv.ok ? '' : priv.message, /PRIVATE key: never share it/);
  });
});
