import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { operatorContext } from '../../src/kernel/context.js';
import { expiresAt } from '../../src/web/portal/security-txt.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeCompany } from '../helpers/factories.js';
import { ARMOURED_KEY } from '../helpers/intake.js';
import { publishedAdvisory } from '../helpers/advisories.js';
import { fieldValues, parseSecurityTxt } from '../helpers/security-txt.js';

let t: TestApp;
before(async () => {
  t = await createTestApp({ PUBLIC_URL: 'https://cradle.example.test' });
});
after(() => t.close());

const host = (slug: string) => `${slug}.cradle.example.test`;
const fetchTxt = (slug: string, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url: '/.well-known/security.txt', headers: { host: host(slug) } });
const values = fieldValues;

describe('the test parser itself', () => {
  it('rejects files that break RFC 9116', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    assert.deepEqual(parseSecurityTxt('Contact: https://a.test/\nExpires: 2026-06-01T00:00:00Z\n', now).errors, []);
    assert.match(parseSecurityTxt('Expires: 2026-06-01T00:00:00Z\n', now).errors.join(), /Contact is required/);
    assert.match(parseSecurityTxt('Contact: http://a.test/\nExpires: 2026-06-01T00:00:00Z\n', now).errors.join(), /must use https/);
    assert.match(parseSecurityTxt('Contact: https://a.test/\nExpires: 2028-06-01T00:00:00Z\n', now).errors.join(), /more than a year/);
    assert.match(parseSecurityTxt('Contact: https://a.test/\nExpires: 2026-06-01\n', now).errors.join(), /RFC 3339/);
    assert.match(parseSecurityTxt('Contact: https://a.test/\nExpires: 2026-06-01T00:00:00Z\nnonsense\n', now).errors.join(), /neither a field/);
  });
});

describe('GET {portal_url}/.well-known/security.txt', () => {
  it('is valid with every setting filled in, and names form, mailbox, key, languages, policy and format', async () => {
    const c = await makeCompany(t.database.db, {
      securityEmail: 'psirt@acme.example',
      policyUrl: 'https://acme.example/cvd',
      languages: ['en', 'de-AT'],
      preferredReportFormat: 'CSAF or plain text',
      pgpPublicKey: ARMOURED_KEY,
    });
    const res = await fetchTxt(c.slug);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    const p = parseSecurityTxt(res.body, new Date());
    assert.deepEqual(p.errors, []);
    const portal = `https://${host(c.slug)}`;
    assert.deepEqual(values(p, 'contact'), [`${portal}/submit`, 'mailto:psirt@acme.example'], 'form first, then the mailbox');
    assert.deepEqual(values(p, 'encryption'), [`${portal}/pgp-key.txt`]);
    assert.deepEqual(values(p, 'preferred-languages'), ['en, de-AT']);
    assert.deepEqual(values(p, 'policy'), ['https://acme.example/cvd']);
    assert.deepEqual(values(p, 'canonical'), [`${portal}/.well-known/security.txt`]);
    assert.deepEqual(values(p, 'preferred-report-format'), ['CSAF or plain text']);
    const key = await t.app.inject({ url: new URL(values(p, 'encryption')[0] ?? '').pathname, headers: { host: host(c.slug) } });
    assert.equal(key.body.trim(), ARMOURED_KEY, 'the Encryption URI serves the key');
  });

  it('is valid with no optional setting filled in', async () => {
    const c = await makeCompany(t.database.db);
    const p = parseSecurityTxt((await fetchTxt(c.slug)).body, new Date());
    assert.deepEqual(p.errors, []);
    const portal = `https://${host(c.slug)}`;
    assert.deepEqual(values(p, 'contact'), [`${portal}/submit`]);
    assert.deepEqual(values(p, 'encryption'), []);
    assert.deepEqual(values(p, 'policy'), [], 'no policy published: no Policy field');
    assert.deepEqual(values(p, 'preferred-languages'), ['en']);
    assert.equal(values(p, 'preferred-report-format').length, 1);
  });

  it('expires within 90 days and is renewed on every request', async () => {
    const c = await makeCompany(t.database.db);
    const p = parseSecurityTxt((await fetchTxt(c.slug)).body, new Date());
    const ahead = Date.parse(values(p, 'expires')[0] ?? '') - Date.now();
    assert.ok(ahead > 88 * 86_400_000 && ahead <= 90 * 86_400_000, `${ahead / 86_400_000} days`);
    assert.equal(expiresAt(new Date('2026-12-31T23:59:59.999Z')).toISOString(), '2027-03-31T00:00:00.000Z');
    assert.equal(expiresAt(new Date('2027-03-01T00:00:00.000Z')).toISOString(), '2027-05-30T00:00:00.000Z');
  });

  it('cannot be given extra fields through a setting holding a line break', async () => {
    const c = await makeCompany(t.database.db);
    await updateCompany(t.database.db, operatorContext(), c.slug, {
      policyUrl: 'https://acme.example/p\nContact: https://evil.example/',
      preferredReportFormat: 'text\r\nContact: https://evil.example/',
    });
    const p = parseSecurityTxt((await fetchTxt(c.slug)).body, new Date());
    assert.deepEqual(p.errors, []);
    assert.deepEqual(values(p, 'contact'), [`https://${host(c.slug)}/submit`]);
    assert.equal(values(p, 'policy').length, 1);
  });

  it('answers HEAD, and redirects the legacy /security.txt', async () => {
    const c = await makeCompany(t.database.db);
    const head = await fetchTxt(c.slug, 'HEAD');
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(head.body, '');
    const legacy = await t.app.inject({ url: '/security.txt', headers: { host: host(c.slug) } });
    assert.equal(legacy.statusCode, 301);
    assert.equal(legacy.headers.location, '/.well-known/security.txt');
  });

  it('names the CSAF provider metadata once the company has published an advisory, and stays valid', async () => {
    const c = await makeCompany(t.database.db);
    assert.deepEqual(values(parseSecurityTxt((await fetchTxt(c.slug)).body, new Date()), 'csaf'), []);
    await publishedAdvisory(t.database.db, c);
    const p = parseSecurityTxt((await fetchTxt(c.slug)).body, new Date());
    assert.deepEqual(p.errors, []);
    assert.deepEqual(values(p, 'csaf'), [`https://${host(c.slug)}/.well-known/csaf/provider-metadata.json`]);
  });

  it('is not signed, and no signing key is published, when the operator configured none', async () => {
    const c = await makeCompany(t.database.db);
    const body = (await fetchTxt(c.slug)).body;
    assert.match(body, /^# Security contact/);
    assert.ok(!body.includes('PGP') && !body.includes('Signed with'));
    assert.equal((await t.app.inject({ url: '/security-txt-signing-key.txt', headers: { host: host(c.slug) } })).statusCode, 404);
    assert.ok(!(await t.app.inject({ url: '/', headers: { host: host(c.slug) } })).body.includes('security-txt-fingerprint'));
  });

  it('does not exist for an unknown portal', async () => {
    assert.equal((await fetchTxt('nobody-here')).statusCode, 404);
  });
});
