import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { count, eq } from 'drizzle-orm';
import { sbomComponents, sbomDependencies, sboms, sbomStages } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { newId } from '../../../src/kernel/ids.js';
import { companyExportChunks } from '../../../src/modules/export/export-company.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { STALE_STAGE_MS, stageRows } from '../../../src/modules/sboms/sboms.stage.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { bareComponent, cycloneDx } from '../../helpers/evidence.js';
import { makeCompany } from '../../helpers/factories.js';

// Issue 33: a push writes its components and graph before its transaction (src/modules/sboms/sboms.stage.ts).

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());
const ctx = operatorContext();

async function companyWithProduct() {
  const c = await makeCompany(d.db);
  await upsertProduct(d.db, ctx, c.id, { name: 'Thermostat', identifier: 'thermo' });
  return c;
}
const doc = cycloneDx(
  [
    { name: 'a', version: '1', deps: ['b'] },
    { name: 'b', version: '1' },
  ],
  ['a'],
);
const normal = {
  components: [bareComponent('x', 'direct')],
  edges: [['x', 'x']] as [string, string][],
};

/** What the company has in each table the push writes ahead of its transaction. */
async function staged(companyId: string) {
  const n = async (table: typeof sbomComponents | typeof sbomDependencies | typeof sbomStages | typeof sboms) =>
    (await d.db.select({ n: count() }).from(table).where(eq(table.companyId, companyId)))[0]?.n;
  return { sboms: await n(sboms), components: await n(sbomComponents), edges: await n(sbomDependencies), stages: await n(sbomStages) };
}

describe('staged SBOM rows', () => {
  it('publishes the staged rows with the version and leaves no stage entry', async () => {
    const c = await companyWithProduct();
    const r = await pushSbom(d.db, ctx, c.id, 'thermo', doc);
    assert.deepEqual(await staged(c.id), { sboms: 1, components: 2, edges: 2, stages: 0 });
    const [row] = await d.db.select({ n: count() }).from(sbomComponents).where(eq(sbomComponents.sbomId, r.id));
    assert.equal(row?.n, 2, "the components carry the stored version's id");
  });

  it("removes the staged rows when the push's transaction fails after they were written", async () => {
    const c = await companyWithProduct();
    await d.ddl(`create function stage_test_fail() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`);
    await d.ddl('create trigger stage_test_fail before insert on sboms for each row execute function stage_test_fail()');
    try {
      await assert.rejects(pushSbom(d.db, ctx, c.id, 'thermo', doc), (e: unknown) => /injected failure/.test(String((e as Error).cause ?? e)));
    } finally {
      await d.ddl('drop trigger stage_test_fail on sboms');
      await d.ddl('drop function stage_test_fail');
    }
    assert.deepEqual(await staged(c.id), { sboms: 0, components: 0, edges: 0, stages: 0 });
  });

  it("sweeps a push's rows left by a stopped process once its stage is an hour old, at the company's next push", async () => {
    const c = await companyWithProduct();
    const other = await companyWithProduct();
    const now = Date.now();
    const old = { sbomId: newId(), companyId: c.id };
    const young = { sbomId: newId(), companyId: c.id };
    const othersOld = { sbomId: newId(), companyId: other.id };
    await stageRows(d.db, old, normal, [null], new Date(now - STALE_STAGE_MS - 60_000));
    await stageRows(d.db, young, normal, [null], new Date(now - 60_000));
    await stageRows(d.db, othersOld, normal, [null], new Date(now - STALE_STAGE_MS - 60_000));
    assert.deepEqual(await staged(c.id), { sboms: 0, components: 2, edges: 2, stages: 2 });

    await pushSbom(d.db, ctx, c.id, 'thermo', doc);
    const left = await d.db.select({ id: sbomStages.id }).from(sbomStages).where(eq(sbomStages.companyId, c.id));
    assert.deepEqual(
      left.map((s) => s.id),
      [young.sbomId],
      'the hour-old stage is gone, the younger one (a push still running) stays',
    );
    assert.deepEqual(await staged(c.id), { sboms: 1, components: 3, edges: 3, stages: 1 });
    assert.deepEqual(await staged(other.id), { sboms: 0, components: 1, edges: 1, stages: 1 }, "another company's stage is its own next push's to sweep");
  });

  it('removes a version’s components and graph with it (the trigger that replaced the foreign-key cascade)', async () => {
    const c = await companyWithProduct();
    const r = await pushSbom(d.db, ctx, c.id, 'thermo', doc);
    await d.db.delete(sboms).where(eq(sboms.id, r.id));
    assert.deepEqual(await staged(c.id), { sboms: 0, components: 0, edges: 0, stages: 0 });
  });

  it('leaves staged rows out of the company export until their version is stored', async () => {
    const c = await companyWithProduct();
    const r = await pushSbom(d.db, ctx, c.id, 'thermo', doc);
    const pending = { sbomId: newId(), companyId: c.id };
    await stageRows(d.db, pending, normal, [null], new Date());
    let text = '';
    for await (const chunk of companyExportChunks(d.db, c.id)) text += chunk;
    const exported = JSON.parse(text) as { sbomComponents: { sbomId: string }[]; sbomDependencies: { sbomId: string }[] };
    assert.deepEqual([...new Set(exported.sbomComponents.map((x) => x.sbomId))], [r.id]);
    assert.deepEqual([...new Set(exported.sbomDependencies.map((x) => x.sbomId))], [r.id]);
  });
});
