import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import { AppError } from '../../../src/kernel/errors.js';
import { listProducts } from '../../../src/modules/products/list-products.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());
const ctx = operatorContext();

describe('upsertProduct', () => {
  it('creates on a new identifier and updates on a known one, keeping the id', async () => {
    const c = await makeCompany(d.db);
    const a = await upsertProduct(d.db, ctx, c.id, { name: 'Thermostat', identifier: 't2', producer: 'Acme' });
    assert.equal(a.created, true);
    const b = await upsertProduct(d.db, ctx, c.id, { name: 'Thermostat T2', identifier: 't2', firmwareVersion: '2.4' });
    assert.equal(b.created, false);
    assert.equal(b.product.id, a.product.id);
    assert.equal(b.product.name, 'Thermostat T2');
    assert.equal(b.product.producer, 'Acme', 'an omitted field keeps its value');
    assert.equal(b.product.firmwareVersion, '2.4');
    const c2 = await upsertProduct(d.db, ctx, c.id, { name: 'Thermostat T2', identifier: 't2', producer: null });
    assert.equal(c2.product.producer, null, 'an explicit null clears it');
  });

  it("keeps identifiers per company and lists only the company's own products by name", async () => {
    const x = await makeCompany(d.db);
    const y = await makeCompany(d.db);
    await upsertProduct(d.db, ctx, x.id, { name: 'Zeta', identifier: 'same' });
    await upsertProduct(d.db, ctx, x.id, { name: 'Alpha', identifier: 'other' });
    const fromY = await upsertProduct(d.db, ctx, y.id, { name: 'Gamma', identifier: 'same' });
    assert.equal(fromY.created, true, 'the same identifier in another company is a new product');
    assert.deepEqual(
      (await listProducts(d.db, x.id)).map((p) => p.name),
      ['Alpha', 'Zeta'],
    );
    assert.deepEqual(
      (await listProducts(d.db, y.id)).map((p) => p.name),
      ['Gamma'],
    );
  });

  it('refuses missing fields and strings over 255 characters', async () => {
    const c = await makeCompany(d.db);
    for (const bad of [
      { identifier: 'x' },
      { name: 'x' },
      { name: 'x'.repeat(256), identifier: 'x' },
      { name: 'x', identifier: 'y', producer: 'p'.repeat(256) },
      { name: 'x', identifier: 'y', extra: 1 },
    ]) {
      await assert.rejects(upsertProduct(d.db, ctx, c.id, bad), (e: unknown) => e instanceof AppError && e.code === 'VALIDATION');
    }
    assert.equal((await listProducts(d.db, c.id)).length, 0);
  });
});
