// Every company read cache's loader reads only what its version domain watches
// (src/db/version-domains.ts): a table outside it, or a column of a table watched by columns, would
// change without moving the version, and the cache would serve stale data with no error.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import '../../src/app.js';
import { companyReadCaches, type CompanyLoader } from '../../src/db/company-read-cache.js';
import { asSystem } from '../../src/db/tenant-scope.js';
import { type DomainName, readableColumns } from '../../src/db/version-domains.js';
import { findKeyByDigest } from '../../src/modules/keys/authenticate-key.js';
import { sha256Hex } from '../../src/kernel/ids.js';
import { operatorContext } from '../../src/kernel/context.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { listProducts } from '../../src/modules/products/list-products.js';
import { pushSarif } from '../../src/modules/findings/push-sarif.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../src/modules/sboms/push-sbom.js';
import { creditedAdvisory } from '../helpers/advisories.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { fixture, sarif } from '../helpers/evidence.js';
import { makeAdmin, makeCompany } from '../helpers/factories.js';
import { makeKey } from '../helpers/access.js';
import { loggingHandle, readsOf } from '../helpers/statement-tables.js';

let database: TestDatabase;
let acme: Company;
let productId: string;
const ctx = operatorContext();

before(async () => {
  database = await createTestDatabase();
  acme = await makeCompany(database.db, { plan: 'enterprise' });
  productId = (await upsertProduct(database.db, ctx, acme.id, { name: 'Hub', identifier: 'hub' })).product.id;
  await pushSbom(database.db, ctx, acme.id, 'hub', fixture('cradle-cyclonedx-npm-1.6.cdx.json'));
  await pushSarif(database.db, ctx, acme.id, 'hub', sarif('Semgrep', [{ rule: 'x', file: 'a.c', line: 1, level: 'error' }]));
  await creditedAdvisory(database.db, acme, ['Ada Researcher']);
});
after(() => database.drop());

/** What `load` reads outside `domain`, one line per table or column, as the database plans it. */
async function outside(domain: DomainName, load: CompanyLoader<unknown>, variant?: string): Promise<string[]> {
  const { db, statements } = loggingHandle(database);
  await asSystem(() => load(db, acme.id, variant));
  assert.ok(statements.length > 0, 'the loader sent statements through the handle it was given');
  const { reads, writes } = await readsOf(database, statements);
  const found = writes.map((w) => `writes: ${w.slice(0, 80)}`);
  for (const [table, columns] of reads) {
    const allowed = readableColumns(domain, table);
    if (!allowed) found.push(`table ${table}`);
    else for (const c of columns) if ('only' in allowed ? !allowed.only.has(c) : allowed.except.has(c)) found.push(`column ${table}.${c}`);
  }
  return found.sort();
}

describe('company read caches read only what their version domain watches', () => {
  it('every cache declared in src/ is registered and checked here', () => {
    const declared = (dir: string): number =>
      readdirSync(dir, { withFileTypes: true }).reduce(
        (n, e) =>
          n +
          (e.isDirectory()
            ? declared(`${dir}/${e.name}`)
            : e.name.endsWith('.ts')
              ? (readFileSync(`${dir}/${e.name}`, 'utf8').match(/\bcompanyReadCache(<[^>]*>)?\(/g)?.length ?? 0)
              : 0),
        0,
      );
    const src = new URL('../../src', import.meta.url).pathname;
    // The declaration in company-read-cache.ts itself is not a cache.
    assert.equal(companyReadCaches.size, declared(src) - 1);
    assert.ok(companyReadCaches.size >= 4);
  });

  for (const [name, { domain, load }] of companyReadCaches) {
    it(`${name} (${domain})`, async () => {
      assert.deepEqual(await outside(domain, load), []);
      // A cache with variants (the compliance facts of one product) reads the same way for one.
      if (name === 'compliance facts') assert.deepEqual(await outside(domain, load, productId), []);
    });
  }

  it('key cache (keys): the lookup by digest', async () => {
    const { key } = await makeKey(database.db, { company: acme, admin: await makeAdmin(database.db, acme.slug) }, { scopes: ['read'] });
    let found = false;
    assert.deepEqual(await outside('keys', async (db) => (found = (await findKeyByDigest(db, sha256Hex(key))) !== undefined)), []);
    assert.ok(found, 'the key was read');
  });

  it('names what a loader reads outside its domain (a loader that also reads reports and a companies column)', async () => {
    const wider: CompanyLoader<unknown> = async (db, companyId) => {
      await db.query.reports.findMany({ where: (r, { eq }) => eq(r.companyId, companyId) });
      await db.query.companies.findFirst({ columns: { name: true, plan: true }, where: (c, { eq }) => eq(c.id, companyId) });
      return listProducts(db, companyId);
    };
    assert.deepEqual(await outside('products', wider), ['table companies', 'table reports']);
    assert.deepEqual(await outside('compliance', wider), ['column companies.name']);
  });
});
