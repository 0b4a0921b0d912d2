import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import { AppError } from '../../../src/kernel/errors.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { listSboms } from '../../../src/modules/sboms/list-sboms.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

// Every official CycloneDX JSON test vector, pushed through the verb against a real database:
// valid-* must be stored as a new version, invalid-* refused with nothing stored.
const root = new URL('../../fixtures/cyclonedx-conformance/', import.meta.url);
const versions = ['1.4', '1.5', '1.6', '1.7'] as const;

let d: TestDatabase;
let companyId: string;
before(async () => {
  d = await createTestDatabase();
  companyId = (await makeCompany(d.db)).id;
  for (const v of versions) await upsertProduct(d.db, operatorContext(), companyId, { name: `Vectors ${v}`, identifier: `vectors-${v}` });
});
after(() => d.drop());

for (const v of versions) {
  describe(`CycloneDX ${v} conformance vectors`, () => {
    const files = readdirSync(new URL(`${v}/`, root))
      .filter((f) => f.endsWith('.json'))
      .sort();
    const valid = files.filter((f) => f.startsWith('valid-'));
    const invalid = files.filter((f) => f.startsWith('invalid-'));

    it(`has vectors of both kinds (${valid.length} valid, ${invalid.length} invalid)`, () => {
      assert.ok(valid.length >= 25 && invalid.length >= 15);
      assert.equal(valid.length + invalid.length, files.length);
    });

    it('accepts every valid-* vector as a new version', async () => {
      const accepted: string[] = [];
      for (const f of valid) {
        const r = await pushSbom(d.db, operatorContext(), companyId, `vectors-${v}`, readFileSync(new URL(`${v}/${f}`, root))).catch((e: unknown) => {
          assert.fail(`${v}/${f} was refused: ${(e as Error).message}`);
        });
        assert.equal(r.specVersion, v, f);
        accepted.push(r.id);
      }
      const stored = await listSboms(d.db, companyId, { product: `vectors-${v}` }, { limit: 1000 });
      assert.equal(stored.items.length, valid.length);
      assert.deepEqual(
        stored.items.map((s) => s.version).sort((a, b) => a - b),
        valid.map((_, i) => i + 1),
      );
    });

    it('refuses every invalid-* vector and stores nothing for it', async () => {
      const before = (await listSboms(d.db, companyId, { product: `vectors-${v}` }, { limit: 1000 })).items.length;
      for (const f of invalid) {
        await assert.rejects(
          pushSbom(d.db, operatorContext(), companyId, `vectors-${v}`, readFileSync(new URL(`${v}/${f}`, root))),
          (e: unknown) => e instanceof AppError && (e.code === 'VALIDATION' || e.code === 'UNSUPPORTED_MEDIA_TYPE'),
          `${v}/${f} was accepted`,
        );
      }
      const afterCount = (await listSboms(d.db, companyId, { product: `vectors-${v}` }, { limit: 1000 })).items.length;
      assert.equal(afterCount, before);
    });
  });
}
