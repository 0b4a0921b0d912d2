import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, products } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.drop());

describe('product upsert under concurrency', () => {
  it('50 parallel upserts of one identifier leave one product: one creation, 49 updates', async () => {
    const db = database.db;
    const company = await makeCompany(db);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        upsertProduct(db, operatorContext(), company.id, { identifier: 'race-1', name: `Name ${i}`, firmwareVersion: `1.0.${i}` }),
      ),
    );
    const rows = await db.select().from(products).where(eq(products.companyId, company.id));
    assert.equal(rows.length, 1);
    assert.equal(results.filter((r) => r.created).length, 1);
    assert.deepEqual(new Set(results.map((r) => r.product.id)), new Set([rows[0]?.id]));
    // The stored values are those of one of the upserts, whole (name and version from the same call).
    const winner = results.find((r) => r.product.name === rows[0]?.name);
    assert.equal(rows[0]?.firmwareVersion, `1.0.${rows[0]?.name.slice('Name '.length)}`);
    assert.ok(winner);
    const audit = await db
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.companyId, company.id), eq(auditLog.targetType, 'product')));
    assert.equal(audit.filter((a) => a.action === 'products.create').length, 1);
    assert.equal(audit.filter((a) => a.action === 'products.update').length, 49);
  });
});
