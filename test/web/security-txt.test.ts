import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { operatorContext } from '../../src/kernel/context.js';
import { expiresAt } from '../../src/web/portal/security-txt.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { makeCompany } from '../helpers/factories.js';
import { ARMOURED_KEY } from '../helpers/intake.js';
import { publishedAdvisory } from '../helpers/advisories.js';

/**
 * An RFC 9116 reader written from the RFC's text, independent of the generator: section 4 grammar
 * (field lines `name: value`, `#` comments, blank lines, CRLF or LF), section 2.5 field rules.
 */
type Parsed = { fields: { name: string; value: string }[]; errors: string[] };
const URI_FIELDS = new Set(['acknowledgments', 'canonical', 'contact', 'encryption', 'hiring', 'policy', 'csaf']);
const LANG_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function parseSecurityTxt(text: string, now: Date): Parsed {
  const fields: Parsed['fields'] = [];
  const errors: string[] = [];
  if (!text.endsWith('\n')) errors.push('the last line must end with a line break');
  const lines = text.split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return;
    const m = /^([A-Za-z0-9-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!m) return void errors.push(`line ${i + 1} is neither a field, a comment nor blank: ${line}`);
    fields.push({ name: (m[1] as string).toLowerCase(), value: m[2] as string });
  });
  const all = (n: string) => fields.filter((f) => f.name === n);
  for (const f of fields) {
    if (!URI_FIELDS.has(f.name)) continue;
    let u: URL;
    try {
      u = new URL(f.value);
    } catch {
      errors.push(`${f.name} is not a URI: ${f.value}`);
      continue;
    }
    if ((u.protocol === 'http:' || u.protocol === 'https:') && u.protocol !== 'https:') errors.push(`${f.name}: web URIs must use https: ${f.value}`);
    if (f.name === 'contact' && !['https:', 'mailto:', 'tel:'].includes(u.protocol)) errors.push(`contact scheme ${u.protocol}`);
    if (f.name === 'encryption' && /BEGIN PGP/.test(f.value)) errors.push('encryption must reference a key, not hold it');
  }
  if (all('contact').length === 0) errors.push('Contact is required');
  const expires = all('expires');
  if (expires.length !== 1) errors.push(`Expires must appear exactly once (found ${expires.length})`);
  else if (!RFC3339.test(expires[0]?.value ?? '')) errors.push('Expires is not an RFC 3339 date-time');
  else {
    const at = Date.parse(expires[0]?.value ?? '');
    if (at <= now.getTime()) errors.push('the file has expired');
    if (at - now.getTime() > 366 * 24 * 3600 * 1000) errors.push('Expires is more than a year ahead');
  }
  const langs = all('preferred-languages');
  if (langs.length > 1) errors.push('Preferred-Languages must appear at most once');
  for (const l of langs) for (const tag of l.value.split(',').map((s) => s.trim())) if (!LANG_TAG.test(tag)) errors.push(`bad language tag ${tag}`);
  return { fields, errors };
}

let t: TestApp;
before(async () => {
  t = await createTestApp({ PUBLIC_URL: 'https://cradle.example.test' });
});
after(() => t.close());

const host = (slug: string) => `${slug}.cradle.example.test`;
const fetchTxt = (slug: string, method: 'GET' | 'HEAD' = 'GET') => t.app.inject({ method, url: '/.well-known/security.txt', headers: { host: host(slug) } });
const values = (p: Parsed, name: string) => p.fields.filter((f) => f.name === name).map((f) => f.value);

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

  it('does not exist for an unknown portal', async () => {
    assert.equal((await fetchTxt('nobody-here')).statusCode, 404);
  });
});
