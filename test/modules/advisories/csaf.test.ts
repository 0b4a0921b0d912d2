import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Advisory, csafDocument, sortKeysDeep } from '../../../src/modules/advisories/csaf.js';
import { bsiValidate } from '../../helpers/bsi-csaf.js';
import { csafExamples, csafValidator } from '../../helpers/csaf-validator.js';

const validate = csafValidator();
const check = (doc: unknown) => assert.ok(validate(doc), JSON.stringify(validate.errors?.slice(0, 3)));

const advisory = (over: Partial<Advisory> = {}): Advisory => ({
  trackingId: 'ACME-2026-0007',
  title: 'Authentication bypass in Thermostat T2 firmware',
  category: 'csaf_security_advisory',
  publisher: { name: 'Acme GmbH', namespace: 'https://acme.example', contactDetails: 'psirt@acme.example' },
  status: 'final',
  revisions: [
    { number: '1', date: new Date('2026-11-01T10:00:00Z'), summary: 'Initial release' },
    { number: '2', date: new Date('2026-11-15T09:00:00Z'), summary: 'Added the mitigation for 2.3' },
  ],
  summary: 'An attacker on the local network can bypass authentication.',
  products: [
    { key: 't2-2.3', vendor: 'Acme', name: 'Thermostat T2', version: '2.3.0' },
    { key: 't2-2.4', vendor: 'Acme', name: 'Thermostat T2', version: '2.4.1' },
    { key: 'hub-1', vendor: 'Acme', name: 'Hub', version: '1.0' },
  ],
  vulnerabilities: [
    {
      title: 'Authentication bypass via crafted session cookie',
      cve: 'CVE-2026-12345',
      internalId: '0b6f3c1e-8a4e-4d3e-9c0f-1a2b3c4d5e6f',
      cwe: { id: 'CWE-287', name: 'Improper Authentication' },
      cvssVector: 'CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      description: 'The web interface accepts a forged session cookie.',
      status: { fixed: ['t2-2.4'], known_affected: ['t2-2.3'], known_not_affected: ['hub-1'] },
      remediation: { category: 'vendor_fix', details: 'Update to 2.4.1.', url: 'https://acme.example/fw' },
      notAffectedJustification: 'The hub does not contain the vulnerable web interface.',
      acknowledgments: [{ names: ['Jane Researcher'] }],
    },
  ],
  ...over,
});

describe('CSAF validator', () => {
  it('accepts every official OASIS example (proving the validator)', () => {
    const examples = csafExamples();
    assert.ok(examples.length >= 10);
    for (const { name, doc } of examples) assert.ok(validate(doc), `${name}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
  });
  it('refuses a document missing required fields', () => {
    assert.equal(validate({ document: { category: 'csaf_base', csaf_version: '2.0' } }), false);
  });
});

describe('csafDocument', () => {
  it('builds a valid security advisory with product tree, scores, remediation and VEX impact', () => {
    const doc = csafDocument(advisory()) as {
      document: { tracking: Record<string, unknown>; distribution: unknown };
      vulnerabilities: Record<string, unknown>[];
    };
    check(doc);
    assert.equal(doc.document.tracking.version, '2');
    assert.equal(doc.document.tracking.initial_release_date, '2026-11-01T10:00:00.000Z');
    assert.deepEqual(doc.document.distribution, { tlp: { label: 'WHITE' } });
    const v = doc.vulnerabilities[0] as Record<string, unknown>;
    assert.deepEqual(v.product_status, { fixed: ['CSAFPID-0002'], known_affected: ['CSAFPID-0001'], known_not_affected: ['CSAFPID-0003'] });
    // The fix applies to the affected version only, never to the version that already has it.
    assert.deepEqual(v.remediations, [{ category: 'vendor_fix', details: 'Update to 2.4.1.', product_ids: ['CSAFPID-0001'], url: 'https://acme.example/fw' }]);
    assert.deepEqual((v.scores as { cvss_v3: unknown }[])[0]?.cvss_v3, {
      version: '3.1',
      vectorString: 'CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      baseScore: 8.8,
      baseSeverity: 'HIGH',
    });
  });
  it('builds a valid VEX document with under-investigation products and a CVSS 4.0 note', () => {
    const doc = csafDocument(
      advisory({
        category: 'csaf_vex',
        vulnerabilities: [
          {
            title: 'Possible memory corruption in the parser',
            internalId: 'r-42',
            description: 'Under analysis.',
            cvssVector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N',
            status: { under_investigation: ['t2-2.3', 't2-2.4'], known_not_affected: ['hub-1'] },
            notAffectedJustification: 'No parser in the hub.',
          },
        ],
      }),
    ) as { vulnerabilities: { notes: { title: string }[]; scores?: unknown }[] };
    check(doc);
    assert.equal(doc.vulnerabilities[0]?.scores, undefined, 'CSAF 2.0 has no CVSS 4.0 score object');
    assert.ok(doc.vulnerabilities[0]?.notes.some((n) => n.title === 'CVSS 4.0'));
  });
  it('writes the canonical URL as the one self reference (CSAF 2.0 test 6.2.11), schema-valid; none without one', () => {
    const url = 'https://acme.cradle.example/.well-known/csaf/clear/2026/acme-2026-0007.json';
    const doc = csafDocument(advisory({ selfUrl: url })) as { document: { references?: unknown; tracking: { id: string } } };
    check(doc);
    assert.deepEqual(doc.document.references, [{ category: 'self', summary: 'Canonical URL', url }]);
    // The test's condition: an https URL ending in the section 5.1 file name of the tracking id.
    assert.ok(url.startsWith('https://') && url.endsWith(`/${doc.document.tracking.id.toLowerCase()}.json`));
    assert.equal((csafDocument(advisory()) as { document: { references?: unknown } }).document.references, undefined);
  });
  it('writes the keys of every object in canonical order (CSAF 2.0 test 6.2.13, as BSI checks it)', async () => {
    const doc = csafDocument(advisory({ selfUrl: 'https://acme.example/.well-known/csaf/clear/2026/acme-2026-0007.json' })) as {
      document: Record<string, unknown>;
      vulnerabilities: Record<string, unknown>[];
    };
    assert.deepEqual(Object.keys(doc), ['document', 'product_tree', 'vulnerabilities']);
    assert.deepEqual(Object.keys(doc.document), ['category', 'csaf_version', 'distribution', 'lang', 'notes', 'publisher', 'references', 'title', 'tracking']);
    assert.deepEqual(Object.keys(doc.document.publisher as object), ['category', 'contact_details', 'name', 'namespace']);
    assert.deepEqual(Object.keys(doc.vulnerabilities[0] ?? {}), [
      'acknowledgments',
      'cve',
      'cwe',
      'ids',
      'notes',
      'product_status',
      'remediations',
      'scores',
      'threats',
      'title',
    ]);
    assert.deepEqual(Object.keys((doc.vulnerabilities[0]?.scores as { cvss_v3: object }[])[0]?.cvss_v3 ?? {}), [
      'baseScore',
      'baseSeverity',
      'vectorString',
      'version',
    ]);
    assert.deepEqual(await bsiValidate(doc, ['6.2.13']), { errors: [], warnings: [], tests: ['6.2.13'] });
    // The test itself sees a document out of order, so its silence above means something.
    const unsorted = { ...doc, document: { title: 'x', ...doc.document } };
    assert.deepEqual((await bsiValidate(unsorted, ['6.2.13'])).warnings, [{ test: '6.2.13', path: '/document', message: 'not sorted alphabetically' }]);
  });
  it('sorts keys as the collator does: case-insensitively, `_` before letters, arrays kept in order', () => {
    const sorted = sortKeysDeep({ products: 1, product_ids: 2, product_id: 3, Zeta: 4, alpha: [{ b: 1, a: 2 }, 0] });
    assert.equal(JSON.stringify(sorted), '{"alpha":[{"a":2,"b":1},0],"product_id":3,"product_ids":2,"products":1,"Zeta":4}');
  });
  it('refuses an advisory that names a product it does not list', () => {
    assert.throws(
      () => csafDocument(advisory({ vulnerabilities: [{ title: 't', internalId: 'x', description: 'd', status: { fixed: ['ghost'] } }] })),
      /unknown product ghost/,
    );
  });
});
