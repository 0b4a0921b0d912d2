import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { auditLog, companies, users } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { AppError } from '../../../src/kernel/errors.js';
import { createCompany } from '../../../src/modules/companies/create-company.js';
import { updateCompany } from '../../../src/modules/companies/update-company.js';
import { createAdmin } from '../../../src/modules/users/create-admin.js';
import { verifyPassword } from '../../../src/modules/users/password.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany, uniqueSlug } from '../../helpers/factories.js';

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

const ctx = operatorContext();
const count = async (table: typeof companies | typeof users) => Number((await d.db.select({ n: sql<number>`count(*)::int` }).from(table))[0]?.n);

const rejects = (p: Promise<unknown>, code: string, fragment: RegExp) =>
  assert.rejects(p, (e: unknown) => e instanceof AppError && e.code === code && fragment.test(e.message));

describe('createCompany', () => {
  it('stores the company with defaults and an audit row in the same transaction', async () => {
    const slug = uniqueSlug();
    const c = await createCompany(d.db, ctx, { slug, name: 'Acme', plan: 'reporting' });
    assert.equal(c.slug, slug);
    assert.equal(c.plan, 'reporting');
    assert.equal(c.aiTriage, false);
    assert.deepEqual(c.languages, ['en']);
    const audit = await d.db.select().from(auditLog).where(eq(auditLog.companyId, c.id));
    assert.equal(audit.length, 1);
    assert.equal(audit[0]?.action, 'companies.create');
    assert.equal(audit[0]?.actorType, 'operator');
  });

  for (const [slug, why] of [
    ['Acme', /lowercase/],
    ['-acme', /DNS label/],
    ['acme-', /DNS label/],
    ['ac_me', /DNS label/],
    ['a'.repeat(64), /at most 63/],
    ['', /must not be empty/],
    ['www', /reserved/],
    ['api', /reserved/],
    ['admin', /reserved/],
    ['mail', /reserved/],
  ] as const) {
    it(`refuses slug ${JSON.stringify(slug)} and writes nothing`, async () => {
      const before = await count(companies);
      await rejects(createCompany(d.db, ctx, { slug, name: 'X', plan: 'free' }), 'VALIDATION', why);
      assert.equal(await count(companies), before);
    });
  }

  it('accepts a 63-character slug and single-character slugs', async () => {
    const long = `a${'b'.repeat(61)}c`;
    assert.equal((await createCompany(d.db, ctx, { slug: long, name: 'L', plan: 'free' })).slug, long);
    assert.equal((await createCompany(d.db, ctx, { slug: '7', name: 'S', plan: 'free' })).slug, '7');
  });

  it('refuses a duplicate slug with CONFLICT and leaves the first company untouched', async () => {
    const c = await makeCompany(d.db, { name: 'First' });
    const before = await count(companies);
    await rejects(createCompany(d.db, ctx, { slug: c.slug, name: 'Second', plan: 'free' }), 'CONFLICT', /already taken/);
    assert.equal(await count(companies), before);
    const [row] = await d.db.select().from(companies).where(eq(companies.slug, c.slug));
    assert.equal(row?.name, 'First');
  });

  it('refuses an unknown plan', async () => {
    await rejects(createCompany(d.db, ctx, { slug: uniqueSlug(), name: 'X', plan: 'gold' }), 'VALIDATION', /plan/);
  });
});

describe('updateCompany', () => {
  it('changes plan and AI triage and audits which settings changed', async () => {
    const c = await makeCompany(d.db, { plan: 'free' });
    const u = await updateCompany(d.db, ctx, c.slug, { plan: 'enterprise', aiTriage: true });
    assert.equal(u.plan, 'enterprise');
    assert.equal(u.aiTriage, true);
    const rows = await d.db.select().from(auditLog).where(eq(auditLog.companyId, c.id));
    const upd = rows.find((r) => r.action === 'companies.update');
    assert.deepEqual(upd?.details, { changed: ['plan', 'aiTriage'], plan: 'enterprise', aiTriage: true });
  });

  it('answers NOT_FOUND for an unknown slug and VALIDATION for a bad plan', async () => {
    await rejects(updateCompany(d.db, ctx, 'ghost-company', { plan: 'free' }), 'NOT_FOUND', /ghost-company/);
    const c = await makeCompany(d.db);
    await rejects(updateCompany(d.db, ctx, c.slug, { plan: 'platinum' }), 'VALIDATION', /plan/);
    await rejects(updateCompany(d.db, ctx, c.slug, {}), 'VALIDATION', /nothing to update/);
  });

  it('checks portal settings: e-mail syntax and OpenPGP key blocks', async () => {
    const c = await makeCompany(d.db);
    await rejects(updateCompany(d.db, ctx, c.slug, { securityEmail: 'not-an-email' }), 'VALIDATION', /securityEmail/);
    await rejects(updateCompany(d.db, ctx, c.slug, { pgpPublicKey: 'hello' }), 'VALIDATION', /OpenPGP/);
    const key = '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nmQINBGR...\n-----END PGP PUBLIC KEY BLOCK-----';
    const u = await updateCompany(d.db, ctx, c.slug, { securityEmail: 'psirt@acme.test', pgpPublicKey: key, languages: ['en', 'de'] });
    assert.equal(u.securityEmail, 'psirt@acme.test');
    assert.equal(u.pgpPublicKey, key);
    assert.deepEqual(u.languages, ['en', 'de']);
  });
});

describe('createAdmin', () => {
  it('stores a scrypt hash that verifies, never the password', async () => {
    const c = await makeCompany(d.db);
    const u = await createAdmin(d.db, ctx, c.slug, { email: 'Alice@Example.test', password: 'a long passphrase' });
    const [row] = await d.db.select().from(users).where(eq(users.id, u.id));
    assert.ok(row);
    assert.match(row.passwordHash, /^scrypt\$32768\$8\$3\$/);
    assert.ok(!row.passwordHash.includes('a long passphrase'));
    assert.equal(await verifyPassword('a long passphrase', row.passwordHash), true);
    assert.equal(await verifyPassword('a long passphrasE', row.passwordHash), false);
    const audit = await d.db.select().from(auditLog).where(eq(auditLog.targetId, u.id));
    assert.ok(!JSON.stringify(audit).includes('passphrase'), 'no password in the audit log');
  });

  it('refuses an empty or short password, a bad e-mail, an unknown company, a taken e-mail', async () => {
    const c = await makeCompany(d.db);
    const before = await count(users);
    await rejects(createAdmin(d.db, ctx, c.slug, { email: 'a@b.test', password: '' }), 'VALIDATION', /must not be empty/);
    await rejects(createAdmin(d.db, ctx, c.slug, { email: 'a@b.test', password: 'short' }), 'VALIDATION', /at least 15/);
    await rejects(createAdmin(d.db, ctx, c.slug, { email: 'a@b.test', password: 'password12345678' }), 'VALIDATION', /common or breached/);
    await rejects(createAdmin(d.db, ctx, c.slug, { email: 'a@b.test', password: `the ${c.slug} team rocks` }), 'VALIDATION', /portal name/);
    await rejects(createAdmin(d.db, ctx, c.slug, { email: 'nope', password: 'long enough passphrase' }), 'VALIDATION', /e-mail/);
    await rejects(createAdmin(d.db, ctx, 'ghost-co', { email: 'g@b.test', password: 'long enough passphrase' }), 'NOT_FOUND', /ghost-co/);
    assert.equal(await count(users), before);
    await createAdmin(d.db, ctx, c.slug, { email: 'dup@b.test', password: 'long enough passphrase' });
    await rejects(createAdmin(d.db, ctx, c.slug, { email: 'DUP@b.test', password: 'long enough passphrase' }), 'CONFLICT', /already exists/);
  });
});
