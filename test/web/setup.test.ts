import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { companies, setupTokens, users } from '../../src/db/schema/index.js';
import { issueSetupToken } from '../../src/modules/instance/setup.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const form = (fields: Record<string, string>) => ({
  method: 'POST' as const,
  url: '/setup',
  headers: { host: SITE, 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});
const companyCount = async () => Number((await t.database.db.select({ n: sql<number>`count(*)::int` }).from(companies))[0]?.n);

describe('first-run set-up', () => {
  let token: string;

  it('sends a fresh instance from / to the set-up page', async () => {
    const home = await t.app.inject({ url: '/', headers: { host: SITE } });
    assert.equal(home.statusCode, 303);
    assert.equal(home.headers.location, '/setup');
    const page = await t.app.inject({ url: '/setup', headers: { host: SITE } });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /name="token"/);
    token = (await issueSetupToken(t.database.db)) as string;
    assert.match(token, /^[0-9a-f]{32}$/);
    const stored = await t.database.db.select().from(setupTokens);
    assert.ok(
      stored.every((r) => r.tokenDigest !== token),
      'only a digest is stored',
    );
  });

  const good = () => ({ token, companyName: 'Acme', slug: 'acme', email: 'root@acme.test', password: 'a good password', plan: 'enterprise' });

  it('refuses a wrong token with 403, keeps the typed values, and creates nothing', async () => {
    const res = await t.app.inject(form({ ...good(), token: 'f'.repeat(32) }));
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /set-up token is wrong or expired/);
    assert.match(res.body, /value="Acme"/);
    assert.ok(!res.body.includes('a good password'), 'the password is never echoed');
    assert.equal(await companyCount(), 0);
  });

  it('re-renders with field messages on invalid input', async () => {
    const res = await t.app.inject(form({ ...good(), slug: 'www', email: 'nope' }));
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /id="slug-error">Slug is reserved/);
    assert.match(res.body, /id="email-error">E-mail address must be an e-mail address/);
    assert.equal(await companyCount(), 0);
  });

  it('creates the first company and administrator with the right token, signs the administrator in and shows what to do first', async () => {
    const res = await t.app.inject({ ...form(good()), headers: { ...form(good()).headers, 'user-agent': 'SetupBrowser/1.0' } });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard?welcome=1');
    const cookie = String([res.headers['set-cookie']].flat()[0] ?? '').split(';')[0] ?? '';
    assert.ok(cookie.includes('='), 'a session cookie');
    const overview = await t.app.inject({ url: '/dashboard?welcome=1', headers: { host: SITE, cookie } });
    assert.equal(overview.statusCode, 200);
    assert.match(overview.body, /Cradle is set up: Acme and its administrator root@acme\.test were created/);
    assert.match(overview.body, /http:\/\/acme\.localhost:3000/);
    // The checklist, every step open on a new company, each linking to the page that does it.
    const steps = [...overview.body.matchAll(/<li id="step-([a-z]+)" class="(done|todo)">[\s\S]*?<a href="([^"]+)">/g)].map((m) => [m[1], m[2], m[3]]);
    assert.deepEqual(steps, [
      ['policy', 'todo', '/settings/portal'],
      ['contact', 'todo', '/settings/portal'],
      ['key', 'todo', '/settings/api-keys'],
      ['product', 'todo', '/products'],
      ['sbom', 'todo', '/evidence'],
      ['team', 'todo', '/settings/team'],
      ['notify', 'todo', '/settings/webhooks'],
      ['feeds', 'todo', '/known-vulnerabilities'],
    ]);
    // The session records where it was started from, and the sign-in is audited.
    const rows = (await t.database.db.execute(sql`select address, user_agent as "userAgent" from sessions`)) as unknown as {
      rows: { address: string | null; userAgent: string | null }[];
    };
    assert.equal(rows.rows.length, 1);
    assert.equal(rows.rows[0]?.userAgent, 'SetupBrowser/1.0');
    assert.ok(rows.rows[0]?.address);
    const audit = (await t.database.db.execute(sql`select details from audit_log where action = 'session.sign_in'`)) as unknown as {
      rows: { details: unknown }[];
    };
    assert.deepEqual(
      audit.rows.map((r) => r.details),
      [{ via: 'setup' }],
    );
    const [c] = await t.database.db.select().from(companies);
    assert.equal(c?.slug, 'acme');
    assert.equal(c?.plan, 'enterprise');
    const [u] = await t.database.db
      .select()
      .from(users)
      .where(eq(users.companyId, c?.id ?? ''));
    assert.equal(u?.email, 'root@acme.test');
    assert.equal((await t.database.db.select().from(setupTokens)).length, 0, 'tokens are consumed');
  });

  it('cannot be claimed a second time, even with the same token', async () => {
    const res = await t.app.inject(form({ ...good(), slug: 'other', email: 'x@other.test' }));
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/');
    assert.equal(await companyCount(), 1);
    const page = await t.app.inject({ url: '/setup', headers: { host: SITE } });
    assert.equal(page.statusCode, 303);
    assert.equal(await issueSetupToken(t.database.db), undefined, 'no token is printed once set up');
    const home = await t.app.inject({ url: '/', headers: { host: SITE } });
    assert.equal(home.statusCode, 200);
  });
});
