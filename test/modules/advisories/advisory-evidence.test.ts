import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fixedWithoutAdvisory } from '../../../src/modules/advisories/advisory-evidence.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { listAdvisoryRows } from '../../../src/modules/advisories/advisory-rows.js';
import { publishAdvisory } from '../../../src/modules/advisories/release-advisory.js';
import { fixedReport, readyDraft, testTarget } from '../../helpers/advisories.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

describe('fixedWithoutAdvisory (Annex I Part II (4) evidence)', () => {
  it('counts fixed reports per product until their advisory is published, for the one company only', async () => {
    const c = await makeCompany(d.db);
    const other = await makeCompany(d.db);
    const first = await fixedReport(d.db, c, { productName: 'Thermostat T2' });
    await fixedReport(d.db, c, { productName: 'thermostat t2' });
    await fixedReport(d.db, other, { productName: 'Thermostat T2' });
    assert.deepEqual([...(await fixedWithoutAdvisory(d.db, c.id))], [['thermostat t2', 2]]);
    await readyDraft(d.db, c, first);
    assert.deepEqual([...(await fixedWithoutAdvisory(d.db, c.id))], [['thermostat t2', 2]], 'a draft does not count');
    await publishAdvisory(d.db, operatorContext(), testTarget(c), (await listAdvisoryRows(d.db, c.id))[0]?.id ?? '');
    assert.deepEqual([...(await fixedWithoutAdvisory(d.db, c.id))], [['thermostat t2', 1]]);
  });
});
