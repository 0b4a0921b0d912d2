import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Database, openDatabase } from '../../src/db/client.js';
import { companyReadCache } from '../../src/db/company-read-cache.js';
import { dataVersions } from '../../src/db/data-versions.js';
import { operatorContext } from '../../src/kernel/context.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { listProducts, listProductsCached, productListCacheStats as stats } from '../../src/modules/products/list-products.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { pushSarif } from '../../src/modules/findings/push-sarif.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { sarif } from '../helpers/evidence.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { makeCompany } from '../helpers/factories.js';

/**
 * The company read cache (src/db/company-read-cache.ts) behind `GET /products` and `list_products`:
 * a change to a company's products, through the verb, by hand in SQL or (PostgreSQL) through a
 * second instance, is seen by the very next read; reads with no change in between come from memory.
 */
let database: TestDatabase;
let second: Database;
let acme: Company;
let other: Company;
const ctx = operatorContext();
const onPostgres = Boolean(process.env.DATABASE_URL);

before(async () => {
  database = await createTestDatabase();
  second = database.url ? await openDatabase({ databaseUrl: database.url, poolSize: 4 }) : database;
  await second.migrate();
  acme = await makeCompany(database.db, { plan: 'enterprise' });
  other = await makeCompany(database.db, { plan: 'enterprise' });
  await upsertProduct(database.db, ctx, acme.id, { name: 'Hub', identifier: 'hub' });
  await upsertProduct(database.db, ctx, other.id, { name: 'Other hub', identifier: 'hub' });
});
after(async () => {
  if (second !== database) await second.close();
  await database.drop();
});

const names = (list: readonly { name: string }[]) => list.map((p) => p.name);

/** The cached list equals the database's list at the same moment; returns it. */
async function assertCurrent(c: Company, db = database.db) {
  const got = await listProductsCached(db, c.id);
  assert.deepEqual(got, await listProducts(db, c.id));
  return got;
}

/** Reads twice (the second from memory), applies `change`, then the next read loads and shows it. */
async function seen(what: string, change: () => Promise<unknown>, expect: string[]): Promise<void> {
  await assertCurrent(acme);
  const hits = stats.hits;
  await assertCurrent(acme);
  assert.equal(stats.hits, hits + 1, `${what}: an unchanged company is answered from memory`);
  await change();
  const misses = stats.misses;
  assert.deepEqual(names(await assertCurrent(acme)), expect, `${what}: the next read shows the change`);
  assert.equal(stats.misses, misses + 1, `${what}: loaded again`);
}

describe('company read cache: the product list', () => {
  it('sees a product added and one renamed through the verb', async () => {
    await seen('added', () => upsertProduct(database.db, ctx, acme.id, { name: 'Camera', identifier: 'cam' }), ['Camera', 'Hub']);
    await seen('renamed', () => upsertProduct(database.db, ctx, acme.id, { name: 'Bridge', identifier: 'hub' }), ['Bridge', 'Camera']);
  });

  it('sees changes made by hand in SQL, outside Cradle', async () => {
    await seen('renamed in SQL', () => database.ddl(`update products set name = 'Doorbell' where company_id = '${acme.id}' and identifier = 'cam'`), [
      'Bridge',
      'Doorbell',
    ]);
    await seen('deleted in SQL', () => database.ddl(`delete from products where company_id = '${acme.id}' and identifier = 'cam'`), ['Bridge']);
  });

  it("keeps each company's list apart, and another company's change costs no reload", async () => {
    assert.deepEqual(names(await assertCurrent(other)), ['Other hub']);
    await assertCurrent(acme);
    const { hits, misses } = stats;
    await upsertProduct(database.db, ctx, other.id, { name: 'Other lock', identifier: 'lock' });
    assert.deepEqual(names(await assertCurrent(acme)), ['Bridge'], 'acme unchanged');
    assert.equal(stats.hits, hits + 1, 'served from memory');
    assert.deepEqual(names(await assertCurrent(other)), ['Other hub', 'Other lock']);
    assert.equal(stats.misses, misses + 1);
  });

  it('is on its own version domain: a SARIF push and a report filed reload nothing, the compliance facts see them', async () => {
    await assertCurrent(acme);
    const { hits, misses } = stats;
    const compliance = async () => (await dataVersions(database.db).after(acme.id)).company(acme.id, 'compliance');
    const before = await compliance();
    await pushSarif(database.db, ctx, acme.id, 'hub', sarif('Semgrep', [{ rule: 'x', file: 'a.c', line: 1, level: 'error' }]));
    await fileReport(database.db, ctx, acme, { description: 'Heap overflow in the firmware updater of the hub.' }, 'api');
    assert.ok((await compliance()) > before, 'the compliance domain moved');
    await assertCurrent(acme);
    assert.deepEqual([stats.hits, stats.misses], [hits + 1, misses], 'the product list did not');
  });

  it(
    onPostgres ? 'sees a change made through a second instance (PostgreSQL)' : 'sees a change through a second handle of the one embedded database (PGlite)',
    async () => {
      await assertCurrent(acme);
      await assertCurrent(acme, second.db);
      await upsertProduct(second.db, ctx, acme.id, { name: 'Sensor', identifier: 'sensor' });
      assert.deepEqual(names(await assertCurrent(acme)), ['Bridge', 'Sensor']);
    },
  );

  it('answers with frozen values: a caller cannot change what later hits get', async () => {
    const list = await listProductsCached(database.db, acme.id);
    assert.throws(() => (list as unknown as { name: string }[]).push({ name: 'x' }), TypeError);
    assert.throws(() => {
      (list[0] as { name: string }).name = 'changed';
    }, TypeError);
    assert.deepEqual(await assertCurrent(acme), list);
  });

  const sharedRead = onPostgres
    ? "reads concurrent callers' versions with one statement (PostgreSQL)"
    : 'reads no version at all: the embedded database notifies (PGlite)';
  it(sharedRead, async () => {
    await assertCurrent(acme);
    await assertCurrent(other);
    const reads = dataVersions(database.db).stats.reads;
    const lists = await Promise.all(Array.from({ length: 20 }, (_, i) => listProductsCached(database.db, (i % 2 ? acme : other).id)));
    assert.equal(dataVersions(database.db).stats.reads - reads, onPostgres ? 1 : 0);
    assert.deepEqual(names(lists[1] ?? []), ['Bridge', 'Sensor']);
    assert.deepEqual(names(lists[0] ?? []), ['Other hub', 'Other lock']);
  });
});

describe('company read cache: the rules', () => {
  it('a change that commits while a value loads is seen by the next read', async () => {
    let changeDuringLoad = true;
    const cache = companyReadCache('test: change during load', 'products', async (db, companyId) => {
      const list = await listProducts(db, companyId);
      if (changeDuringLoad) {
        changeDuringLoad = false;
        // Commits after the version was read and after this load read the rows: the value returned
        // now is older than the database, and must not be served once the change is visible.
        await upsertProduct(database.db, ctx, companyId, { name: 'Late', identifier: 'late' });
      }
      return list;
    });
    assert.ok(!names(await cache.read(database.db, acme.id)).includes('Late'), 'this read began before the change');
    assert.ok(names(await cache.read(database.db, acme.id)).includes('Late'), 'the next read shows it');
    assert.equal(cache.stats.misses, 2);
  });

  it('a version that goes down (a database restored) loads again and is then kept', async () => {
    const cache = companyReadCache('test: restored', 'products', listProducts);
    await cache.read(database.db, acme.id);
    await database.ddl(`update company_data_versions set version = 1 where company_id = '${acme.id}' and domain = 'products'`);
    await database.ddl(`update products set name = 'Restored' where company_id = '${acme.id}' and identifier = 'late'`);
    // The update above raised the version again (to 2); set it below what was cached, as a restore would.
    await database.ddl(`update company_data_versions set version = 1 where company_id = '${acme.id}' and domain = 'products'`);
    assert.ok(names(await cache.read(database.db, acme.id)).includes('Restored'));
    const hits = cache.stats.hits;
    await cache.read(database.db, acme.id);
    assert.equal(cache.stats.hits, hits + 1, 'kept under the lower version');
  });

  it('bounded by weight: a value heavier than the bound is served but not kept, lighter ones are', async () => {
    const cache = companyReadCache('test: weight', 'products', listProducts, { weigh: (list) => list.length, maxWeight: 2 });
    // acme has three products by now, other two.
    assert.equal((await cache.read(database.db, acme.id)).length, 3);
    await cache.read(database.db, acme.id);
    assert.equal(cache.stats.hits, 0, 'three weigh more than two: loaded each time');
    await cache.read(database.db, other.id);
    await cache.read(database.db, other.id);
    assert.equal(cache.stats.hits, 1, 'two fit');
  });

  it('a malformed company id fails its own caller only, not the turn it shares', async () => {
    const versions = dataVersions(database.db);
    const [bad, good] = await Promise.allSettled([versions.after("x' or 1=1"), versions.after(acme.id)]);
    assert.equal(bad.status, 'rejected');
    assert.equal(good.status, 'fulfilled');
    assert.ok(good.status === 'fulfilled' && good.value.company(acme.id, 'products') > 0);
    assert.throws(() => good.status === 'fulfilled' && good.value.company(other.id, 'products'), /not asked for/);
    // An id written in capitals names the same company (the database writes uuids in lower case).
    const upper = await versions.after(acme.id.toUpperCase());
    assert.equal(upper.company(acme.id.toUpperCase(), 'products'), upper.company(acme.id, 'products'));
    assert.ok(upper.company(acme.id, 'products') > 0);
  });
});
