import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import type { Company } from '../../../src/modules/companies/companies.schemas.js';
import { evaluate } from '../../../src/modules/compliance/evaluate.js';
import { gatherEvidence } from '../../../src/modules/compliance/gather-evidence.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { fixedReport, publishedAdvisory } from '../../helpers/advisories.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

/** Annex I Part II (4) from stored advisories: a fixed report without a published advisory is a gap. */
let database: TestDatabase;
let company: Company;
before(async () => {
  database = await createTestDatabase();
  company = await makeCompany(database.db, { plan: 'enterprise' });
  await upsertProduct(database.db, operatorContext(), company.id, { name: 'Thermostat T2', identifier: 'thermo-t2' });
});
after(() => database.drop());

const fixedWithoutAdvisory = async () =>
  (await gatherEvidence(database.db, company.id)).evidence.products.find((p) => p.identifier === 'thermo-t2')?.fixedWithoutAdvisory;

describe('advisory evidence in the compliance snapshot', () => {
  it('counts fixed reports naming the product until their advisory is published', async () => {
    assert.equal(await fixedWithoutAdvisory(), 0);
    const id = await fixedReport(database.db, company, { productName: 'thermostat t2' });
    assert.equal(await fixedWithoutAdvisory(), 1);
    const snapshot = await gatherEvidence(database.db, company.id);
    const product = snapshot.evidence.products.find((p) => p.identifier === 'thermo-t2');
    const verdict = evaluate(snapshot.evidence, snapshot.takenAt).find((a) => a.productId === product?.id && a.requirementId === 'cra-ai-p2-4');
    assert.equal(verdict?.verdict, 'gap');
    assert.match(verdict?.reason ?? '', /1 fixed report\(s\) without a published advisory/);
    await publishedAdvisory(database.db, company, id);
    assert.equal(await fixedWithoutAdvisory(), 0);
  });
});
