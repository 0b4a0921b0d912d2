import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { VULNERABILITY_TYPES } from '../../src/modules/reports/reports.schemas.js';
import { createTestApp, portalHost, type TestApp } from '../helpers/app.js';
import { makeCompany } from '../helpers/factories.js';
import { ARMOURED_KEY, countReports, freshAddress, intakeState } from '../helpers/intake.js';

let t: TestApp;
let acme: Company;
before(async () => {
  t = await createTestApp();
  acme = await makeCompany(t.database.db, {
    name: 'Acme & <Sons>',
    securityEmail: 'security@acme.example',
    policyText: 'We answer within 5 days.\n<script>alert(1)</script>',
    languages: ['en', 'de'],
    preferredReportFormat: 'Plain text, CVSS vector welcome',
    pgpPublicKey: ARMOURED_KEY,
  });
  for (const [identifier, name] of [
    ['t2', 'Smart Thermostat T2'],
    ['cam', 'Cam <HD>'],
  ]) {
    await upsertProduct(t.database.db, operatorContext(), acme.id, { identifier, name });
  }
});
after(() => t.close());

const get = (url: string, slug = acme.slug, headers: Record<string, string> = {}) => t.app.inject({ url, headers: { host: portalHost(slug), ...headers } });
const post = (fields: Record<string, string>, opts: { ip?: string; accept?: string; slug?: string } = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/submit',
    headers: { host: portalHost(opts.slug ?? acme.slug), 'content-type': 'application/x-www-form-urlencoded', accept: opts.accept ?? 'text/html' },
    payload: new URLSearchParams(fields).toString(),
    remoteAddress: opts.ip ?? freshAddress(),
  });
const statusLink = (body: string): string => /id="status-link" href="([^"]+)"/.exec(body)?.[1] ?? '';
const submissionId = (body: string): string => /id="submission-id">([^<]+)</.exec(body)?.[1] ?? '';

describe('portal landing page', () => {
  it('shows the name, contacts, languages, policy and OpenPGP key, all escaped', async () => {
    const res = await get('/');
    assert.equal(res.statusCode, 200);
    const b = res.body;
    assert.ok(b.includes('Acme &amp; &lt;Sons&gt;'));
    assert.ok(b.includes('href="/submit"'), 'web form');
    assert.ok(b.includes('href="mailto:security@acme.example"'), 'human-read mailbox beside the form (Art. 13(17))');
    assert.ok(b.includes('English (en), German (de)'));
    assert.ok(b.includes('Plain text, CVSS vector welcome'));
    assert.ok(b.includes('&lt;script&gt;alert(1)&lt;/script&gt;') && !b.includes('<script>'), 'policy text is escaped');
    assert.ok(b.includes('-----BEGIN PGP PUBLIC KEY BLOCK-----'));
    assert.ok(b.includes('href="/pgp-key.txt"'));
    assert.ok(b.includes(`"slug": "${acme.slug}"`), 'mentions the bulk endpoint for agents');
  });

  it('works with no optional setting filled in', async () => {
    const bare = await makeCompany(t.database.db);
    const res = await get('/', bare.slug);
    assert.equal(res.statusCode, 200);
    assert.ok(!res.body.includes('mailto:'));
    assert.ok(!res.body.includes('OpenPGP key'));
    assert.match(res.body, /has not published a written policy here yet/);
    assert.equal((await get('/pgp-key.txt', bare.slug)).statusCode, 404);
  });

  it('serves the OpenPGP key as text', async () => {
    const res = await get('/pgp-key.txt');
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/plain/);
    assert.equal(res.body, `${ARMOURED_KEY}\n`);
  });

  it('answers 404 for a portal that does not exist', async () => {
    assert.equal((await get('/submit', 'no-such-co')).statusCode, 404);
  });
});

describe('GET /submit', () => {
  it('names every input exactly as the report fields and offers the registered products', async () => {
    const res = await get('/submit');
    assert.equal(res.statusCode, 200);
    for (const f of ['description', 'productName', 'vulnerabilityType', 'stepsToReproduce', 'impact', 'contactEmail', 'pgpKey']) {
      assert.match(res.body, new RegExp(`name="${f}"`), f);
    }
    assert.match(res.body, /<form method="post" action="\/submit"/);
    const products = [...res.body.matchAll(/<option value="([^"]*)" ?>/g)].map((m) => m[1]);
    assert.deepEqual(products.slice(0, 3), ['', 'Cam &lt;HD&gt;', 'Smart Thermostat T2'], 'other / not listed first, then products by name, escaped');
    const types = [...res.body.matchAll(/<option value="([a-z_]+)" >/g)].map((m) => m[1]);
    assert.deepEqual(types, [...VULNERABILITY_TYPES]);
    assert.match(res.body, /Other \/ not listed/);
    assert.ok(!/<script/i.test(res.body), 'no script on the page');
  });
});

describe('POST /submit', () => {
  it('files the report and shows the submission id, time and a working private status link', async () => {
    const before = await intakeState(t.database.db, acme.id);
    const res = await post({
      description: 'Login bypass',
      productName: 'Smart Thermostat T2',
      vulnerabilityType: 'authentication_bypass',
      stepsToReproduce: '',
      impact: '',
      contactEmail: '',
      pgpKey: '',
      website: '',
    });
    assert.equal(res.statusCode, 200);
    const id = submissionId(res.body);
    const s = await intakeState(t.database.db, acme.id);
    const row = s.reports.find((r) => r.id === id);
    assert.ok(row, 'the shown submission id is the stored report');
    assert.equal(row.productName, 'Smart Thermostat T2');
    assert.equal(row.vulnerabilityType, 'authentication_bypass');
    assert.equal(row.contactEmail, null, 'an empty field means not given');
    assert.equal(row.source, 'portal_form');
    assert.ok(res.body.includes(`datetime="${row.createdAt.toISOString()}"`));
    // People read the time to the second with its zone; the raw instant stays in the attribute only.
    const shown = `${row.createdAt.toISOString().replace('T', ' ').slice(0, 19)} UTC`;
    assert.ok(res.body.includes(`>${shown}</time>`), 'the receipt shows when, as people read it');
    assert.ok(!res.body.includes(`>${row.createdAt.toISOString()}<`), 'not the machine form');
    assert.equal(s.events.length, before.events.length + 1);
    assert.ok(s.firstReportAt);
    assert.match(res.body, /What happens next/);

    const link = statusLink(res.body);
    assert.match(link, new RegExp(`^http://${acme.slug}\\.localhost:3000/status/[0-9a-f]{64}$`));
    const status = await get(new URL(link).pathname);
    assert.equal(status.statusCode, 200);
    assert.ok(status.body.includes(id));
    assert.match(status.body, /id="report-status"><strong>new<\/strong>/);
    assert.ok(status.body.includes(`>${shown}</time>`), 'the status page shows when it was received, as people read it');
    assert.doesNotMatch(status.body, />\d{4}-\d\d-\d\dT[^<]*Z</, 'no machine-form instant between tags');
    assert.ok(!status.body.includes('Login bypass'), 'the status page does not show the report text');
    assert.equal(status.headers['x-robots-tag'], 'noindex, nofollow');
    assert.equal(status.headers['referrer-policy'], 'no-referrer');
    assert.equal(status.headers['cache-control'], 'no-store');
  });

  it('re-renders 400 with a message per field and every typed value, filing nothing', async () => {
    const n = await countReports(t.database.db);
    const typed = {
      description: '',
      productName: 'Cam <HD>',
      vulnerabilityType: 'injection',
      stepsToReproduce: '1. open </textarea><b>x</b>',
      impact: 'total',
      contactEmail: 'not-an-email',
      pgpKey: 'junk',
    };
    const res = await post(typed);
    assert.equal(res.statusCode, 400);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.match(res.body, /id="description-error">Description must not be empty/);
    assert.match(res.body, /id="contactEmail-error">Your e-mail address must be an e-mail address/);
    assert.match(res.body, /id="pgpKey-error">Your OpenPGP public key must be an ASCII-armoured OpenPGP public key block/);
    assert.match(res.body, /<option value="Cam &lt;HD&gt;" selected>/);
    assert.match(res.body, /<option value="injection" selected>/);
    assert.ok(res.body.includes('>1. open &lt;/textarea&gt;&lt;b&gt;x&lt;/b&gt;</textarea>'), 'textarea value kept and escaped');
    assert.ok(res.body.includes('value="not-an-email"'));
    assert.ok(res.body.includes('>junk</textarea>'));
    assert.match(res.body, /aria-invalid="true" aria-describedby="description-error"/);
    assert.equal(await countReports(t.database.db), n);
  });

  it('re-renders the form when the text holds a character the database cannot store, filing nothing', async () => {
    const n = await countReports(t.database.db);
    const res = await post({ description: 'Overflow in the parser \u0000 when the header is long', productName: '', vulnerabilityType: 'other' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /<form[^>]+action="\/submit"/, 'the form comes back, not a bare error page');
    assert.match(res.body, /a character that cannot be stored \(such as NUL, U\+0000\): remove it and send again/);
    assert.ok(res.body.includes('Overflow in the parser'), 'what was typed is kept');
    assert.equal(await countReports(t.database.db), n);
  });

  it('ignores repeated field names instead of crashing, and files nothing', async () => {
    const n = await countReports(t.database.db);
    const res = await t.app.inject({
      method: 'POST',
      url: '/submit',
      headers: { host: portalHost(acme.slug), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'description=a&description=b&contactEmail=x%40example.org',
      remoteAddress: freshAddress(),
    });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /id="description-error">Description is required/);
    assert.equal(await countReports(t.database.db), n);
  });

  it('keeps a posted product that is not in the list', async () => {
    const res = await post({ description: '', productName: 'Old Model X' });
    assert.match(res.body, /<option value="Old Model X" selected>/);
  });

  it('escapes script and markup payloads on the confirmation page', async () => {
    const payload = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'`';
    const res = await post({ description: payload, productName: '"><svg onload=alert(3)>' });
    assert.equal(res.statusCode, 200);
    assert.ok(!/<script>|<img|<svg/.test(res.body), 'no injected markup');
    assert.ok(res.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&quot;&#39;&#96;'));
    assert.ok(res.body.includes('&quot;&gt;&lt;svg onload=alert(3)&gt;'));
    const row = (await intakeState(t.database.db, acme.id)).reports.find((r) => r.id === submissionId(res.body));
    assert.equal(row?.description, payload, 'stored exactly as sent');
  });

  it('files nothing when the honeypot is filled, yet answers like a success', async () => {
    const n = await countReports(t.database.db);
    const res = await post({ description: 'Buy cheap watches', website: 'http://spam.example' });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /your report was received/);
    assert.match(submissionId(res.body), /^[0-9a-f-]{36}$/);
    assert.equal(await countReports(t.database.db), n);
    assert.equal((await get(new URL(statusLink(res.body)).pathname)).statusCode, 404);
  });

  it('accepts every field at its maximum even when URL-encoding triples non-ASCII text', async () => {
    const res = await post({ description: 'é'.repeat(32 * 1024), stepsToReproduce: 'é'.repeat(16 * 1024), impact: 'é'.repeat(8 * 1024) });
    assert.equal(res.statusCode, 200);
    const row = (await intakeState(t.database.db, acme.id)).reports.find((r) => r.id === submissionId(res.body));
    assert.equal(Buffer.byteLength(row?.description ?? ''), 64 * 1024);
  });

  it('refuses a body over 640 KiB with 413 naming the limit, to a browser as a page, filing nothing', async () => {
    const n = await countReports(t.database.db);
    const json = await post({ description: 'x'.repeat(700 * 1024) }, { accept: 'application/json' });
    assert.equal(json.statusCode, 413);
    assert.equal(json.json().detail, 'request body is larger than this endpoint accepts (at most 640.0 KiB)');
    const page = await post({ description: 'x'.repeat(700 * 1024) });
    assert.equal(page.statusCode, 413);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /at most 640\.0 KiB/);
    assert.match(page.body, /Nothing was saved\. Go back to the form with your browser&#39;s Back button, which usually keeps what you typed/);
    assert.equal(await countReports(t.database.db), n);
  });

  it('limits each address to 10 filed reports per 10 minutes; invalid posts do not count', async () => {
    const ip = '203.0.113.50';
    for (let i = 0; i < 3; i++) assert.equal((await post({ description: '' }, { ip })).statusCode, 400);
    for (let i = 0; i < 10; i++) assert.equal((await post({ description: `report ${i}` }, { ip })).statusCode, 200, `report ${i}`);
    const n = await countReports(t.database.db);
    const page = await post({ description: 'my long careful write-up', impact: 'bad' }, { ip });
    assert.equal(page.statusCode, 429);
    assert.match(page.headers['content-type'] as string, /^text\/html/);
    assert.ok(Number(page.headers['retry-after']) > 0);
    assert.match(page.headers['ratelimit-policy'] as string, /^"report-form";q=10;w=600$/);
    assert.ok(page.body.includes('>my long careful write-up</textarea>'), 'a person keeps the text');
    const api = await post({ description: 'x' }, { ip, accept: 'application/json' });
    assert.equal(api.statusCode, 429);
    assert.match(api.headers['content-type'] as string, /^application\/problem\+json/);
    assert.equal(await countReports(t.database.db), n);
  });
});

describe('GET /status/{token}', () => {
  it("answers 404 for unknown, malformed and other portals' tokens", async () => {
    const other = await makeCompany(t.database.db);
    const filed = await post({ description: 'x' });
    const path = new URL(statusLink(filed.body)).pathname;
    assert.equal((await get(path)).statusCode, 200);
    assert.equal((await get(path, other.slug)).statusCode, 404, 'a token works on its own portal only');
    assert.equal((await get(`/status/${'0'.repeat(64)}`)).statusCode, 404);
    assert.equal((await get('/status/<script>')).statusCode, 404);
  });
});
