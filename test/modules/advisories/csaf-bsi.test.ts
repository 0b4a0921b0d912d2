import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import { createAdvisory } from '../../../src/modules/advisories/create-advisory.js';
import { csafUrls } from '../../../src/modules/advisories/csaf-provider.js';
import { advisoryDocument } from '../../../src/modules/advisories/released-documents.js';
import { type AdvisoryTarget, publishAdvisory, reviseAdvisory, withdrawAdvisory } from '../../../src/modules/advisories/release-advisory.js';
import { updateAdvisory } from '../../../src/modules/advisories/update-advisory.js';
import type { Company } from '../../../src/modules/companies/companies.schemas.js';
import { AppError } from '../../../src/kernel/errors.js';
import { addParticipant } from '../../../src/modules/cases/add-participant.js';
import { prepareNotices } from '../../../src/modules/cases/case-notices.js';
import { confirmNotices } from '../../../src/modules/cases/confirm-notices.js';
import { getCase } from '../../../src/modules/cases/get-case.js';
import { openCase } from '../../../src/modules/cases/open-case.js';
import { acknowledgeCase, inboundParticipant } from '../../../src/modules/cases/shared-thread.js';
import { fixedReport } from '../../helpers/advisories.js';
import { bsiValidate, type Finding } from '../../helpers/bsi-csaf.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

/**
 * Every kind of document Cradle publishes, through the real release path, checked by BSI's
 * csaf-validator-lib: the strict schema, every mandatory test (6.1.x) and every recommended test
 * (6.2.x). No error is allowed; the warnings must be exactly those docs/advisories.md justifies
 * ("BSI validator"), so a new warning fails here.
 */
let d: TestDatabase;
let c: Company;
let t: AdvisoryTarget;
const ctx = operatorContext();

/** The one justified warning: known_affected products without a CVSS 3.1 score (CSAF 2.0 test 6.2.3). */
const missingScore = (index: number): Finding => ({
  test: '6.2.3',
  path: `/vulnerabilities/0/product_status/known_affected/${index}`,
  message: 'missing score',
});

const base = {
  products: [
    { name: 'Thermostat T2', vendor: 'Acme', version: '2.3.0', status: 'known_affected', impact: 'An attacker on the LAN can log in as admin.' },
    { name: 'Thermostat T2', vendor: 'Acme', version: '2.4.1', status: 'fixed' },
  ],
  remediation: { category: 'vendor_fix', details: 'Update to 2.4.1.', url: 'https://acme.example/firmware' },
};

/** The scenarios: fields of the draft, what happens after publishing, and the warnings expected. */
const scenarios: { name: string; fields: Record<string, unknown>; then?: (id: string) => Promise<unknown>; warnings: Finding[] }[] = [
  {
    name: 'CVSS 3.1, CWE, CVE, other ids, every product status, impact statements, acknowledgment',
    fields: {
      ...base,
      products: [
        ...base.products,
        {
          name: 'Hub',
          vendor: 'Acme',
          version: '1.0',
          status: 'not_affected',
          justification: 'vulnerable_code_not_present',
          impact: 'The hub has no web interface.',
        },
        { name: 'Hub', vendor: 'Acme', version: '1.1', status: 'not_affected', justification: 'inline_mitigations_already_exist' },
        { name: 'Thermostat T3', vendor: 'Acme', version: '0.9', status: 'under_investigation' },
      ],
      cve: 'CVE-2026-12345',
      ids: [{ systemName: 'Acme bug tracker', text: 'BUG-4711' }],
      cvssVector: 'CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
      cwe: 'CWE-287',
      cweName: 'Improper Authentication',
      acknowledgments: [{ name: 'Jane Researcher', organization: 'Example Labs', consent: true }],
    },
    warnings: [],
  },
  { name: 'no CVSS', fields: base, warnings: [missingScore(0)] },
  {
    name: 'CVSS 4.0 (no CSAF 2.0 score: a note)',
    fields: { ...base, cvssVector: 'CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N' },
    warnings: [missingScore(0)],
  },
  {
    name: 'CVSS 3.1 with every version fixed (the vector kept as a note)',
    fields: { ...base, products: [base.products[1]], cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
    warnings: [],
  },
  {
    name: 'after a revision',
    fields: { ...base, cvssVector: 'CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
    then: async (id) => {
      await updateAdvisory(d.db, ctx, c, t.distributionUrl, id, {
        title: 'Authentication bypass in Thermostat T2',
        cwe: 'CWE-306',
        cweName: 'Missing Authentication for Critical Function',
      });
      await reviseAdvisory(d.db, ctx, t, id, { summary: 'Named the weakness' });
    },
    warnings: [],
  },
  {
    name: 'after withdrawal',
    fields: { ...base, cvssVector: 'CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
    then: (id) => withdrawAdvisory(d.db, ctx, t, id, { reason: 'Not a vulnerability after all.' }),
    warnings: [],
  },
];

async function draft(fields: Record<string, unknown>): Promise<string> {
  const a = await createAdvisory(d.db, ctx, c, t.distributionUrl, { vulnerabilityId: await fixedReport(d.db, c) });
  await updateAdvisory(d.db, ctx, c, t.distributionUrl, a.id, fields);
  return a.id;
}

before(async () => {
  d = await createTestDatabase();
  c = await makeCompany(d.db, { name: 'Acme' });
  // An https portal, as in production: test 6.2.11 wants the canonical URL on https.
  const portal = `https://${c.slug}.cradle.example`;
  t = { company: c, namespace: portal, distributionUrl: csafUrls(portal).distribution };
});
after(() => d.drop());

describe("BSI's csaf-validator-lib on every kind of released document", () => {
  for (const s of scenarios) {
    it(`${s.name}: advisory and VEX pass every mandatory test, with exactly the justified warnings`, async () => {
      const id = await draft(s.fields);
      await publishAdvisory(d.db, ctx, t, id);
      await s.then?.(id);
      for (const kind of ['csaf', 'vex'] as const) {
        const doc = JSON.parse((await advisoryDocument(d.db, c, t.namespace, id, kind)).content) as { document: { category: string } };
        assert.equal(doc.document.category, kind === 'vex' ? 'csaf_vex' : 'csaf_security_advisory');
        const result = await bsiValidate(doc);
        assert.equal(result.tests.filter((n) => n === 'csaf_2_0_strict').length, 1, 'the strict schema ran');
        assert.ok(
          result.tests.filter((n) => n.startsWith('6.1.')).length >= 40 && result.tests.filter((n) => n.startsWith('6.2.')).length === 20,
          result.tests.join(' '),
        );
        assert.deepEqual(result.errors, [], `${kind}: no schema or mandatory error`);
        assert.deepEqual(result.warnings, s.warnings, `${kind}: exactly the justified warnings`);
      }
    });
  }
});

describe('a report in a coordination case (issue 34)', () => {
  it("carries the case's participants as CSAF involvements, and passes BSI's validator", async () => {
    const b = await makeCompany(d.db, { name: 'lwIP project' });
    const reportId = await fixedReport(d.db, c);
    const kase = await openCase(d.db, ctx, c.id, { title: 'Overflow in lwIP DHCP', reportIds: [reportId] });
    const upstream = await addParticipant(d.db, ctx, c.id, kase.id, { role: 'upstream_maintainer', companySlug: b.slug });
    await addParticipant(d.db, ctx, c.id, kase.id, { role: 'finder', email: 'jane@example.org' });
    await addParticipant(d.db, ctx, c.id, kase.id, { role: 'coordinator', email: 'cvd@csirt.example' });
    const notices = await prepareNotices(d.db, ctx, c.id, kase.id, { participantIds: [upstream.id] });
    await confirmNotices(d.db, ctx, c.id, kase.id, { noticeIds: notices.map((n) => n.id) }, { siteUrl: 'https://cradle.example' });
    await acknowledgeCase(d.db, ctx, await inboundParticipant(d.db, b.id, upstream.id), { kind: 'company', companyId: b.id });
    const acknowledged = (await getCase(d.db, c.id, kase.id)).participants.find((p) => p.id === upstream.id)?.acknowledgedAt;
    const id = (await createAdvisory(d.db, ctx, c, t.distributionUrl, { vulnerabilityId: reportId })).id;
    await updateAdvisory(d.db, ctx, c, t.distributionUrl, id, { ...base, cvssVector: 'CVSS:3.1/AV:A/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' });
    await publishAdvisory(d.db, ctx, t, id);
    for (const kind of ['csaf', 'vex'] as const) {
      const doc = JSON.parse((await advisoryDocument(d.db, c, t.namespace, id, kind)).content) as {
        vulnerabilities: { involvements?: { date: string }[] }[];
      };
      const involvements = doc.vulnerabilities[0]?.involvements ?? [];
      assert.equal(involvements[0]?.date, acknowledged, 'dated at its acknowledgement');
      assert.ok(
        involvements.every((i) => !Number.isNaN(Date.parse(i.date))),
        'every involvement is dated (recommended test 6.2.7)',
      );
      assert.deepEqual(
        involvements.map(({ date: _date, ...i }) => i),
        [
          { party: 'vendor', status: 'open', summary: 'Maintainer of an affected third-party component, notified under CRA Article 13(6)' },
          { party: 'discoverer', status: 'not_contacted', summary: 'Finder of the vulnerability' },
          { party: 'coordinator', status: 'not_contacted', summary: 'Coordinator of the disclosure' },
        ],
      );
      const result = await bsiValidate(doc);
      assert.deepEqual(result.errors, [], `${kind}: no schema or mandatory error`);
      assert.deepEqual(result.warnings, [], `${kind}: no warning`);
    }
  });
});

describe('release refuses what a CSAF test would flag', () => {
  const refusal = async (fields: Record<string, unknown>) => {
    const id = await draft(fields);
    return publishAdvisory(d.db, ctx, t, id).then(
      () => assert.fail('released'),
      (e: unknown) => (e instanceof AppError ? e.extra : e),
    );
  };
  it('a version range as a product version (mandatory test 6.1.31)', async () => {
    const details = await refusal({ ...base, products: [{ ...base.products[0], version: 'all versions before 2.4' }, base.products[1]] });
    assert.deepEqual(details, {
      issues: [{ path: 'products.0.version', message: 'name one version, not a range: list each affected version (CSAF test 6.1.31)' }],
    });
  });
  it('a CVE id among the other ids (recommended test 6.2.17)', async () => {
    const details = await refusal({ ...base, ids: [{ systemName: 'NVD', text: 'CVE-2026-99999' }] });
    assert.deepEqual(details, { issues: [{ path: 'ids.0.text', message: 'a CVE id belongs in `cve`, not in `ids` (CSAF test 6.2.17)' }] });
  });
});
