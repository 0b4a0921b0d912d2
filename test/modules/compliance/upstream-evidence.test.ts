import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import type { Company } from '../../../src/modules/companies/companies.schemas.js';
import { readCompliance } from '../../../src/modules/compliance/read-compliance.js';
import { addParticipant } from '../../../src/modules/cases/add-participant.js';
import { prepareNotices } from '../../../src/modules/cases/case-notices.js';
import { confirmNotices } from '../../../src/modules/cases/confirm-notices.js';
import { openCase } from '../../../src/modules/cases/open-case.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

/** Article 13(6) from reports and cases: a flaw in a third-party component whose maintainer nobody told is a gap. */
let database: TestDatabase;
let company: Company;
let upstream: Company;
const ctx = operatorContext();
before(async () => {
  database = await createTestDatabase();
  company = await makeCompany(database.db, { plan: 'enterprise' });
  upstream = await makeCompany(database.db, { plan: 'enterprise' });
  await upsertProduct(database.db, ctx, company.id, { name: 'Gateway G1', identifier: 'gw-g1' });
});
after(() => database.drop());

/** The product's Article 13(6) verdict through the cached read every surface uses (facts cache, compliance domain). */
const verdict = async () => {
  const { snapshot, assessments } = await readCompliance(database.db, company.id, {});
  const product = snapshot.evidence.products.find((p) => p.identifier === 'gw-g1');
  const a = assessments.find((x) => x.productId === product?.id && x.requirementId === 'cra-art13-6-upstream-notified');
  return [a?.verdict, a?.reason];
};

describe('Article 13(6) in the compliance engine (issue 34)', () => {
  it('marks a report in a third-party component as a gap until a case notified its upstream maintainer', async () => {
    assert.deepEqual(await verdict(), ['met', 'no open report concerns a third-party component']);
    const { report } = await fileReport(database.db, ctx, company, { description: 'DHCP overflow in lwIP', productName: 'gateway g1' }, 'api');
    const id = report.submissionId;
    const marked = await updateReport(database.db, ctx, company.id, id, { componentPurl: 'pkg:github/lwip-tcpip/lwip@2.1.3' });
    assert.equal(marked.componentPurl, 'pkg:github/lwip-tcpip/lwip@2.1.3');
    await assert.rejects(updateReport(database.db, ctx, company.id, id, { componentPurl: 'lwip 2.1.3' }), /package URL/);
    assert.deepEqual(await verdict(), ['gap', '1 open report(s) in a third-party component without a notified upstream maintainer']);

    // A case holding the report with an upstream maintainer added but not yet notified: still a gap.
    const c = await openCase(database.db, ctx, company.id, { title: 'lwIP DHCP', reportIds: [id] });
    const finder = await addParticipant(database.db, ctx, company.id, c.id, { role: 'finder', email: 'finder@example.org' });
    const p = await addParticipant(database.db, ctx, company.id, c.id, { role: 'upstream_maintainer', companySlug: upstream.slug });
    const toFinder = await prepareNotices(database.db, ctx, company.id, c.id, { participantIds: [finder.id] });
    await confirmNotices(database.db, ctx, company.id, c.id, { noticeIds: toFinder.map((n) => n.id) }, { siteUrl: 'https://cradle.example' });
    assert.equal((await verdict())[0], 'gap', 'notifying someone else is not notifying the maintainer');

    const notices = await prepareNotices(database.db, ctx, company.id, c.id, { participantIds: [p.id] });
    await confirmNotices(database.db, ctx, company.id, c.id, { noticeIds: notices.map((n) => n.id) }, { siteUrl: 'https://cradle.example' });
    assert.deepEqual(await verdict(), ['met', 'the maintainer was notified for each of 1 open report(s) in a third-party component']);
  });
});
