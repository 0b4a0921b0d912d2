import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { operatorContext } from '../../src/kernel/context.js';
import { findPortalCompany, PORTAL_COMPANY_TTL_MS } from '../../src/modules/companies/portal-company-cache.js';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { makeCompany, uniqueSlug } from '../helpers/factories.js';

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

/** The real database, watched: counts the queries started through `select`. */
function counted(db: Db): { db: Db; reads: () => number } {
  let n = 0;
  const watched = new Proxy(db, {
    get(target, prop, receiver) {
      if (prop === 'select') n++;
      return Reflect.get(target, prop, receiver);
    },
  });
  return { db: watched, reads: () => n };
}

describe('findPortalCompany', () => {
  it('keeps a company row for a few seconds, then reads it again (a change made by another process)', async () => {
    const c = await makeCompany(d.db, { name: 'Old Name' });
    const t0 = Date.now();
    assert.equal((await findPortalCompany(d.db, c.slug, t0))?.name, 'Old Name');
    // As another instance would: the row changes behind this process's back.
    await d.db.execute(sql`update companies set name = 'New Name' where id = ${c.id}::uuid`);
    assert.equal((await findPortalCompany(d.db, c.slug, t0 + PORTAL_COMPANY_TTL_MS - 1))?.name, 'Old Name');
    assert.equal((await findPortalCompany(d.db, c.slug, t0 + PORTAL_COMPANY_TTL_MS))?.name, 'New Name');
  });

  it('shows a change made in this process through updateCompany at once', async () => {
    const c = await makeCompany(d.db);
    assert.equal((await findPortalCompany(d.db, c.slug))?.securityEmail, null);
    await updateCompany(d.db, operatorContext(), c.slug, { securityEmail: 'psirt@example.org' });
    assert.equal((await findPortalCompany(d.db, c.slug))?.securityEmail, 'psirt@example.org');
  });

  it('keeps no unknown slug: a company created a moment later has its portal at once', async () => {
    const slug = uniqueSlug();
    assert.equal(await findPortalCompany(d.db, slug), undefined);
    const c = await makeCompany(d.db, { slug });
    assert.equal((await findPortalCompany(d.db, slug))?.id, c.id);
  });

  it("answers each slug with its own company's row only, whatever the case", async () => {
    const a = await makeCompany(d.db);
    const b = await makeCompany(d.db);
    const [ra, rb, upper] = await Promise.all([findPortalCompany(d.db, a.slug), findPortalCompany(d.db, b.slug), findPortalCompany(d.db, a.slug.toUpperCase())]);
    assert.deepEqual([ra?.id, rb?.id, upper?.id], [a.id, b.id, a.id]);
    assert.ok(Object.isFrozen(ra), 'requests share the row, so no one may change it');
  });

  it('reads once for concurrent lookups of one slug, and not again while the row is kept', async () => {
    const c = await makeCompany(d.db);
    const w = counted(d.db);
    const found = await Promise.all(Array.from({ length: 5 }, () => findPortalCompany(w.db, c.slug)));
    assert.ok(found.every((f) => f === found[0] && f?.id === c.id));
    await findPortalCompany(w.db, c.slug);
    assert.equal(w.reads(), 1);
  });
});
