import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Database, openDatabase } from '../../../src/db/client.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { findPortalCompany, portalCompanyCacheStats as stats } from '../../../src/modules/companies/portal-company-cache.js';
import { updateCompany } from '../../../src/modules/companies/update-company.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany, uniqueSlug } from '../../helpers/factories.js';
import { loggingHandle } from '../../helpers/statement-tables.js';

/**
 * The portal's company rows (src/modules/companies/portal-company-cache.ts), kept while the
 * company's `company` version stands: a change by any writer (this process, a second instance on
 * PostgreSQL, psql) is in the very next lookup; lookups with no change in between read nothing.
 */
let d: TestDatabase;
let second: Database;
before(async () => {
  d = await createTestDatabase();
  second = d.url ? await openDatabase({ databaseUrl: d.url, poolSize: 2 }) : d;
  await second.migrate();
});
after(async () => {
  if (second !== d) await second.close();
  await d.drop();
});

const onPostgres = Boolean(process.env.DATABASE_URL);

describe('findPortalCompany', () => {
  it('shows a change made by hand in SQL, outside Cradle, in the next lookup (no expiry)', async () => {
    const c = await makeCompany(d.db, { name: 'Old Name' });
    assert.equal((await findPortalCompany(d.db, c.slug))?.name, 'Old Name');
    const hits = stats.hits;
    assert.equal((await findPortalCompany(d.db, c.slug))?.name, 'Old Name');
    assert.equal(stats.hits, hits + 1, 'unchanged: from memory');
    await d.ddl(`update companies set name = 'New Name' where id = '${c.id}'`);
    assert.equal((await findPortalCompany(d.db, c.slug))?.name, 'New Name');
  });

  it(onPostgres ? 'shows a change committed through a second instance (PostgreSQL)' : 'shows a change through a second handle (PGlite)', async () => {
    const c = await makeCompany(d.db);
    assert.equal((await findPortalCompany(d.db, c.slug))?.securityEmail, null);
    await updateCompany(second.db, operatorContext(), c.slug, { securityEmail: 'psirt@example.org' });
    assert.equal((await findPortalCompany(d.db, c.slug))?.securityEmail, 'psirt@example.org');
  });

  it('keeps no unknown slug: a company created a moment later has its portal at once', async () => {
    const slug = uniqueSlug();
    assert.equal(await findPortalCompany(d.db, slug), undefined);
    const c = await makeCompany(d.db, { slug });
    assert.equal((await findPortalCompany(d.db, slug))?.id, c.id);
  });

  it('answers nothing for a company deleted in SQL, and the new holder of its slug after', async () => {
    const slug = uniqueSlug();
    const gone = await makeCompany(d.db, { slug });
    assert.equal((await findPortalCompany(d.db, slug))?.id, gone.id);
    await d.ddl(`delete from companies where id = '${gone.id}'`);
    assert.equal(await findPortalCompany(d.db, slug), undefined);
    const next = await makeCompany(d.db, { slug });
    assert.equal((await findPortalCompany(d.db, slug))?.id, next.id);
  });

  it("answers each slug with its own company's row only, whatever the case", async () => {
    const a = await makeCompany(d.db);
    const b = await makeCompany(d.db);
    const [ra, rb, upper] = await Promise.all([
      findPortalCompany(d.db, a.slug),
      findPortalCompany(d.db, b.slug),
      findPortalCompany(d.db, a.slug.toUpperCase()),
    ]);
    assert.deepEqual([ra?.id, rb?.id, upper?.id], [a.id, b.id, a.id]);
    assert.ok(Object.isFrozen(ra), 'requests share the row, so no one may change it');
  });

  it('concurrent first lookups of one slug share one slug lookup and one row read, and later ones read nothing', async () => {
    const c = await makeCompany(d.db);
    const w = loggingHandle(d);
    const companyReads = () => w.statements.filter((s) => /from "companies"/.test(s.text)).length;
    const found = await Promise.all(Array.from({ length: 5 }, () => findPortalCompany(w.db, c.slug)));
    assert.ok(found.every((f) => f === found[0] && f?.id === c.id));
    assert.equal(companyReads(), 2);
    await findPortalCompany(w.db, c.slug);
    assert.equal(companyReads(), 2);
  });
});
