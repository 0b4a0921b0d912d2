import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, companies } from '../../src/db/schema/index.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, portalHost, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';
import { makeTestKeys } from '../helpers/openpgp-keys.js';

let t: TestApp;
let acme: Tenant;
let client: ReturnType<typeof dashboardClient>;
let keys: Awaited<ReturnType<typeof makeTestKeys>>;

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  client = dashboardClient(t, await signInCookie(t, acme.admin.email));
  keys = await makeTestKeys();
});
after(() => t.close());

const portal = (url: string) => t.app.inject({ url, headers: { host: portalHost(acme.company.slug) } });
const stored = async () => (await t.database.db.select().from(companies).where(eq(companies.id, acme.company.id)))[0];
const audits = async () =>
  t.database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.companyId, acme.company.id), eq(auditLog.action, 'companies.portal_settings')));
const full = (over: Record<string, string> = {}) => ({
  policyText: '## Scope\n\nAll products. See [our page](https://acme.example/cvd).',
  policyUrl: '',
  safeHarbour: 'We will **not** pursue good-faith research.',
  languages: 'en, de',
  securityEmail: 'psirt@acme.example',
  preferredReportFormat: '',
  pgpPublicKey: keys.publicKey,
  acknowledgeDays: '3',
  assessDays: '10',
  resolveDays: '90',
  ...over,
});
const errorOf = (body: string, field: string) => new RegExp(`id="${field}-error">([^<]*)<`).exec(body)?.[1];

describe('dashboard portal settings', () => {
  it('shows the empty settings with what is missing', async () => {
    const res = await client.page('/settings/portal');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<dt>Disclosure policy<\/dt><dd><strong class="error-text">none yet<\/strong>/);
    assert.match(res.body, /name="_csrf"/);
  });

  it('refuses a post without the CSRF token and saves nothing', async () => {
    const res = await client.form('/settings/portal', full(), false);
    assert.equal(res.statusCode, 403);
    assert.equal((await stored())?.securityEmail, null);
  });

  it('saves every setting, publishes it on the portal and in security.txt at once, and audits it', async () => {
    const res = await client.form('/settings/portal', full());
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/settings/portal?saved=1');
    const row = await stored();
    assert.equal(row?.securityEmail, 'psirt@acme.example');
    assert.deepEqual(row?.languages, ['en', 'de']);
    assert.equal(row?.responseAcknowledgeDays, 3);
    assert.equal(row?.responseResolveDays, 90);
    assert.match(row?.pgpPublicKey ?? '', /^-----BEGIN PGP PUBLIC KEY BLOCK-----/);

    const page = await client.page('/settings/portal?saved=1');
    assert.match(page.body, /Saved and published/);
    assert.ok(page.body.includes(`<code>${keys.fingerprint}</code>`), 'the fingerprint is shown');

    const landing = await portal('/');
    assert.ok(landing.body.includes('<h2>Scope</h2>'), 'Markdown rendered');
    assert.ok(landing.body.includes('<a href="https://acme.example/cvd" rel="nofollow noopener noreferrer">our page</a>'));
    assert.ok(landing.body.includes('We will <strong>not</strong> pursue'), 'safe harbour rendered');
    assert.match(landing.body, /acknowledge it <strong>within 3 days<\/strong>/);
    assert.match(landing.body, /<strong>within 10 days<\/strong>/);
    assert.ok(landing.body.includes('href="mailto:psirt@acme.example"'));
    const policy = await portal('/policy');
    assert.equal(policy.statusCode, 200);
    assert.ok(policy.body.includes('<h2>Scope</h2>'));

    const txt = (await portal('/.well-known/security.txt')).body;
    const portalUrl = `http://${portalHost(acme.company.slug)}`;
    assert.ok(txt.includes('Contact: mailto:psirt@acme.example\n'), txt);
    assert.ok(txt.includes(`Encryption: ${portalUrl}/pgp-key.txt\n`));
    assert.ok(txt.includes('Preferred-Languages: en, de\n'));
    assert.ok(txt.includes(`Policy: ${portalUrl}/policy\n`));
    const expires = Date.parse(/Expires: (\S+)/.exec(txt)?.[1] ?? '');
    assert.ok(expires > Date.now() && expires - Date.now() < 365 * 86_400_000, 'Expires under a year');
    assert.equal((await portal('/pgp-key.txt')).body, row?.pgpPublicKey?.trim() + '\n');

    const [audit] = await audits();
    assert.equal(audit?.actorType, 'user');
    assert.equal((audit?.details as { pgpFingerprint?: string }).pgpFingerprint, keys.fingerprint);
    assert.ok(!JSON.stringify(audit?.details).includes('pursue'), 'texts stay out of the audit row');
  });

  it('names an https policy URL in security.txt instead of the portal page', async () => {
    assert.equal((await client.form('/settings/portal', full({ policyUrl: 'https://acme.example/security/policy' }))).statusCode, 303);
    assert.ok((await portal('/.well-known/security.txt')).body.includes('Policy: https://acme.example/security/policy\n'));
  });

  const bad: [string, Record<string, string>, string, RegExp][] = [
    ['an over-long policy', { policyText: 'x'.repeat(20_001) }, 'policyText', /too long: at most 20,000 characters/],
    [
      'HTML in the Markdown policy',
      { policyText: 'Hello <script>alert(1)</script>' },
      'policyText',
      /HTML is not allowed here; write Markdown instead \(found &lt;script&gt;\)/,
    ],
    ['HTML in the safe-harbour statement', { safeHarbour: '<div onclick="x">hi</div>' }, 'safeHarbour', /HTML is not allowed here/],
    ['a malformed e-mail', { securityEmail: 'psirt at acme' }, 'securityEmail', /must be an e-mail address such as psirt@example.com/],
    ['a non-https policy URL', { policyUrl: 'http://acme.example/policy' }, 'policyUrl', /must be an https:\/\/ address/],
    ['garbage as a key', { pgpPublicKey: 'hello' }, 'pgpPublicKey', /must be an ASCII-armoured OpenPGP public key block/],
    [
      'a broken key block',
      { pgpPublicKey: '-----BEGIN PGP PUBLIC KEY BLOCK-----\n\nAAAA\n-----END PGP PUBLIC KEY BLOCK-----' },
      'pgpPublicKey',
      /could not be read as OpenPGP/,
    ],
    ['a private key', { pgpPublicKey: 'PRIVATE' }, 'pgpPublicKey', /this is a PRIVATE key/],
    ['a revoked key', { pgpPublicKey: 'REVOKED' }, 'pgpPublicKey', /this key is revoked/],
    ['an expired key', { pgpPublicKey: 'EXPIRED' }, 'pgpPublicKey', /this key has expired/],
    ['a key that cannot encrypt', { pgpPublicKey: 'SIGNONLY' }, 'pgpPublicKey', /no valid encryption subkey/],
    ['a bad response time', { acknowledgeDays: '400' }, 'acknowledgeDays', /at most 365 days/],
    ['a bad language tag', { languages: 'english!' }, 'languages', /language tags/],
  ];
  for (const [what, over, field, message] of bad) {
    it(`re-renders the form with a message for ${what} and saves nothing`, async () => {
      const before = await stored();
      const auditsBefore = (await audits()).length;
      const key = { PRIVATE: keys.privateKey, REVOKED: keys.revoked, EXPIRED: keys.expired, SIGNONLY: keys.signOnly }[over.pgpPublicKey ?? ''];
      const values = full({ ...over, ...(key ? { pgpPublicKey: key } : {}), securityEmail: over.securityEmail ?? 'other@acme.example' });
      const res = await client.form('/settings/portal', values);
      assert.equal(res.statusCode, 400);
      assert.match(errorOf(res.body, field) ?? '', message);
      assert.match(res.body, /Nothing was saved/);
      assert.match(res.body, new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
      assert.ok(res.body.includes('value="' + (over.securityEmail ?? 'other@acme.example') + '"'), 'what was typed is kept');
      assert.deepEqual(await stored(), before, 'nothing half-saved: the e-mail typed beside the bad field was not stored');
      assert.equal((await audits()).length, auditsBefore);
    });
  }

  it('clears the key when the box is emptied, and security.txt drops Encryption', async () => {
    assert.equal((await client.form('/settings/portal', full({ pgpPublicKey: '' }))).statusCode, 303);
    assert.equal((await stored())?.pgpPublicKey, null);
    assert.ok(!(await portal('/.well-known/security.txt')).body.includes('Encryption:'));
    assert.equal((await portal('/pgp-key.txt')).statusCode, 404);
  });
});
