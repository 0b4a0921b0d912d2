import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../src/db/client.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { findCompaniesBySlugs } from '../../src/modules/companies/find-companies.js';
import { fileReportBatch } from '../../src/modules/reports/file-report-batch.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { makeCompany } from '../helpers/factories.js';
import { countReports, freshAddress, intakeState } from '../helpers/intake.js';

let t: TestApp;
let acme: Company;
let beta: Company;
before(async () => {
  t = await createTestApp();
  acme = await makeCompany(t.database.db, { aiTriage: true });
  beta = await makeCompany(t.database.db);
});
after(() => t.close());

const batch = (payload: unknown, remoteAddress = freshAddress()) =>
  t.app.inject({
    method: 'POST',
    url: '/api/portal/batch',
    headers: { host: SITE, 'content-type': 'application/json' },
    payload: JSON.stringify(payload),
    remoteAddress,
  });

const item = (slug: string, description = 'a vulnerability', extra: Record<string, unknown> = {}) => ({ slug, description, ...extra });

describe('POST /api/portal/batch: filing', () => {
  it('files into several companies with every side effect and answers in request order', async () => {
    const before = { acme: await intakeState(t.database.db, acme.id), beta: await intakeState(t.database.db, beta.id) };
    const res = await batch({
      submissions: [
        item(acme.slug, 'first', { vulnerabilityType: 'injection' }),
        item(beta.slug, 'second'),
        item(acme.slug, 'third', { contactEmail: 'r@example.org' }),
      ],
    });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.summary, { total: 3, succeeded: 3, failed: 0 });
    assert.deepEqual(
      body.results.map((r: { slug: string; ok: boolean }) => [r.slug, r.ok]),
      [
        [acme.slug, true],
        [beta.slug, true],
        [acme.slug, true],
      ],
    );
    for (const r of body.results) {
      assert.deepEqual(Object.keys(r).sort(), ['createdAt', 'ok', 'slug', 'submissionId']);
      assert.match(r.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    }
    const a = await intakeState(t.database.db, acme.id);
    const b = await intakeState(t.database.db, beta.id);
    const byId = new Map([...a.reports, ...b.reports].map((r) => [r.id, r]));
    assert.deepEqual(
      body.results.map((r: { submissionId: string }) => byId.get(r.submissionId)?.description),
      ['first', 'second', 'third'],
      'results map to the items in order',
    );
    assert.equal(a.reports.length - before.acme.reports.length, 2);
    assert.equal(b.reports.length - before.beta.reports.length, 1);
    // Webhook event for every filed item, triage only where enabled, the milestone on both companies.
    assert.deepEqual(
      a.events
        .slice(before.acme.events.length)
        .map((e) => (e.payload.data as { description: string }).description)
        .sort(),
      ['first', 'third'],
    );
    assert.deepEqual(
      b.events.slice(before.beta.events.length).map((e) => e.payload.data.submissionId),
      [body.results[1].submissionId],
    );
    assert.equal(a.jobs.length - before.acme.jobs.length, 2);
    assert.equal(b.jobs.length, 0);
    assert.ok(a.firstReportAt && b.firstReportAt);
    assert.equal(a.audits.filter((x) => x.action === 'reports.file').length - before.acme.audits.filter((x) => x.action === 'reports.file').length, 2);
    assert.ok(a.reports.every((r) => r.source === 'bulk'));
  });

  it('files valid items and reports an unknown slug as ok:false with a portal-not-found error', async () => {
    const n = await countReports(t.database.db);
    const res = await batch({ submissions: [item('no-such-portal'), item(beta.slug, 'kept'), item('Ghost')] });
    assert.equal(res.statusCode, 200);
    const { results, summary } = res.json();
    assert.deepEqual(summary, { total: 3, succeeded: 1, failed: 2 });
    assert.deepEqual(results[0], { slug: 'no-such-portal', ok: false, error: 'portal not found: no company has the portal "no-such-portal"' });
    assert.equal(results[1].ok, true);
    assert.equal(results[2].ok, false);
    assert.match(results[2].error, /portal not found/);
    assert.equal(await countReports(t.database.db), n + 1);
  });

  it('matches slugs without regard to case', async () => {
    const res = await batch({ submissions: [item(beta.slug.toUpperCase())] });
    assert.equal(res.json().results[0].ok, true);
    assert.equal(res.json().results[0].slug, beta.slug.toUpperCase(), 'the slug is echoed as sent');
  });

  it('reports a failed write as ok:false for that item while the others are filed', async () => {
    const db = t.database.db;
    await t.database.ddl(`create or replace function fail_report() returns trigger language plpgsql as $$
      begin if new.description = 'poison' then raise exception 'disk full'; end if; return new; end $$`);
    await t.database.ddl('create trigger fail_report before insert on reports for each row execute function fail_report()');
    try {
      const before = await intakeState(db, acme.id);
      const res = await batch({ submissions: [item(acme.slug, 'good 1'), item(acme.slug, 'poison'), item(acme.slug, 'good 2')] });
      assert.equal(res.statusCode, 200);
      const { results, summary } = res.json();
      assert.deepEqual(summary, { total: 3, succeeded: 2, failed: 1 });
      assert.deepEqual([results[0].ok, results[1].ok, results[2].ok], [true, false, true]);
      assert.equal(results[1].error, 'the report could not be stored; nothing was filed for this item, retry it');
      assert.ok(!JSON.stringify(results).includes('disk full'), 'no database internals leak');
      const s = await intakeState(db, acme.id);
      assert.equal(s.reports.length - before.reports.length, 2);
      assert.equal(s.events.length - before.events.length, 2, 'no event for the failed item');
      assert.equal(s.jobs.length - before.jobs.length, 2);
    } finally {
      await t.database.ddl('drop trigger fail_report on reports');
    }
  });
});

describe('fileReportBatch', () => {
  it('looks each distinct slug up once, however often it repeats', async () => {
    const calls: string[][] = [];
    const lookup = (db: Db, slugs: readonly string[]) => {
      calls.push([...slugs]);
      return findCompaniesBySlugs(db, slugs);
    };
    const items = [acme.slug, beta.slug, acme.slug, acme.slug.toUpperCase(), 'nobody', beta.slug].map((s) => item(s));
    const out = await fileReportBatch(t.database.db, t.app.reportFiler, { actor: { type: 'public' } }, items, { lookup });
    assert.deepEqual(calls, [[acme.slug, beta.slug, 'nobody']]);
    assert.deepEqual(
      out.results.map((r) => r.ok),
      [true, true, true, true, false, true],
    );
    assert.deepEqual(out.summary, { total: 6, succeeded: 5, failed: 1 });
  });
});

describe('POST /api/portal/batch: malformed envelopes are 400 and file nothing', () => {
  const cases: [string, unknown, string, string][] = [
    ['a non-object body', [item('x')], '', 'the body must be a JSON object with a "submissions" array'],
    ['a missing array', {}, 'submissions', 'submissions is required: an array of 1 to 20 reports'],
    ['a non-array', { submissions: 'x' }, 'submissions', 'submissions must be an array of 1 to 20 reports'],
    ['an empty array', { submissions: [] }, 'submissions', 'submissions must hold at least 1 report'],
    [
      '21 items',
      { submissions: Array.from({ length: 21 }, () => item('acme')) },
      'submissions',
      'submissions holds 21 reports; at most 20 are accepted per batch',
    ],
    ['an unknown envelope field', { submissions: [item('acme')], dryRun: true }, 'dryRun', 'unknown field; the envelope holds only "submissions"'],
    ['a non-object item', { submissions: [item('acme'), 'text'] }, 'submissions.1', 'each submission must be a JSON object'],
    ['a null item', { submissions: [null] }, 'submissions.0', 'each submission must be a JSON object'],
    ['a missing slug', { submissions: [item('acme'), { description: 'd' }] }, 'submissions.1.slug', 'slug is required'],
    ['a non-string slug', { submissions: [{ slug: 7, description: 'd' }] }, 'submissions.0.slug', 'slug must be a string'],
    ['a missing description', { submissions: [item('acme'), item('acme'), { slug: 'acme' }] }, 'submissions.2.description', 'description is required'],
    ['an empty description', { submissions: [item('acme', '')] }, 'submissions.0.description', 'description must not be empty'],
    [
      'a type outside the enumeration',
      { submissions: [item('acme', 'd', { vulnerabilityType: 'rce' })] },
      'submissions.0.vulnerabilityType',
      'vulnerabilityType must be one of',
    ],
    ['a wrong field type', { submissions: [item('acme', 'd', { impact: ['high'] })] }, 'submissions.0.impact', 'impact must be a string'],
    ['an over-long field', { submissions: [item('acme', 'x'.repeat(64 * 1024 + 1))] }, 'submissions.0.description', 'description must be at most 64 KiB'],
    ['a bad e-mail', { submissions: [item('acme', 'd', { contactEmail: 'me' })] }, 'submissions.0.contactEmail', 'contactEmail must be an e-mail address'],
    ['a bad key', { submissions: [item('acme', 'd', { pgpKey: 'my key' })] }, 'submissions.0.pgpKey', 'expected an ASCII-armoured OpenPGP public key block'],
    ['an unknown item field', { submissions: [item('acme', 'd', { severity: 'high' })] }, 'submissions.0.severity', 'unknown field'],
  ];
  for (const [name, payload, path, message] of cases) {
    it(`refuses ${name}`, async () => {
      const n = await countReports(t.database.db);
      const withValid = JSON.parse(JSON.stringify(payload).replaceAll('"acme"', JSON.stringify(acme.slug)));
      const res = await batch(withValid);
      assert.equal(res.statusCode, 400);
      assert.match(res.headers['content-type'] as string, /^application\/problem\+json/);
      const body = res.json();
      assert.equal(body.errors.length, 1, 'one message');
      assert.equal(body.errors[0].path, path);
      assert.ok(body.errors[0].message.startsWith(message), body.errors[0].message);
      const label = path.replace(/^submissions\.(\d+)/, 'submissions[$1]');
      assert.equal(body.detail, `${label}: ${body.errors[0].message}`, 'the detail names the item index and the field');
      assert.equal(await countReports(t.database.db), n, 'nothing filed');
    });
  }

  it('accepts exactly 20 items', async () => {
    const res = await batch({ submissions: Array.from({ length: 20 }, (_, i) => item(i % 2 ? acme.slug : beta.slug, `item ${i}`)) });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().summary, { total: 20, succeeded: 20, failed: 0 });
  });

  it('refuses a body that is not JSON with 415, and invalid JSON with 400', async () => {
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/portal/batch',
      headers: { host: SITE, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'submissions=1',
      remoteAddress: freshAddress(),
    });
    assert.equal(form.statusCode, 415);
    assert.equal(form.json().detail, 'send the batch as application/json');
    const broken = await t.app.inject({
      method: 'POST',
      url: '/api/portal/batch',
      headers: { host: SITE, 'content-type': 'application/json' },
      payload: '{"submissions":[',
      remoteAddress: freshAddress(),
    });
    assert.equal(broken.statusCode, 400);
    assert.match(broken.headers['content-type'] as string, /problem\+json/);
  });

  it('refuses a body over 4 MiB with 413', async () => {
    const res = await batch({ submissions: [item(acme.slug, 'x'.repeat(4 * 1024 * 1024))] });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().title, 'Request body too large');
  });

  it('is not served on a portal host', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/portal/batch',
      headers: { host: `${acme.slug}.localhost:3000`, 'content-type': 'application/json' },
      payload: JSON.stringify({ submissions: [item(acme.slug)] }),
    });
    assert.equal(res.statusCode, 404);
  });
});

describe('POST /api/portal/batch: rate limit', () => {
  it('answers the 4th request in a minute from one address with 429, Retry-After and RateLimit fields', async () => {
    const ip = '198.51.100.7';
    const seen: string[] = [];
    // Every request counts, malformed ones too.
    for (const payload of [{ submissions: [item(beta.slug)] }, {}, { submissions: [] }]) {
      const res = await batch(payload, ip);
      seen.push(res.headers.ratelimit as string);
      assert.equal(res.headers['ratelimit-policy'], '"bulk";q=3;w=60');
    }
    assert.deepEqual(
      seen.map((h) => /r=(\d+)/.exec(h)?.[1]),
      ['2', '1', '0'],
    );
    const n = await countReports(t.database.db);
    const refused = await batch({ submissions: [item(beta.slug)] }, ip);
    assert.equal(refused.statusCode, 429);
    assert.match(refused.headers['content-type'] as string, /^application\/problem\+json/);
    const wait = Number(refused.headers['retry-after']);
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    assert.match(refused.headers.ratelimit as string, /^"bulk";r=0;t=\d+$/);
    assert.equal(refused.json().status, 429);
    assert.equal(await countReports(t.database.db), n, 'a refused batch files nothing');
    assert.equal((await batch({ submissions: [item(beta.slug)] }, '198.51.100.8')).statusCode, 200, 'another address is unaffected');
  });

  it('counts IPv6 clients per /64', async () => {
    for (const host of ['1', '2', '3']) assert.equal((await batch({}, `2001:db8:7:7::${host}`)).statusCode, 400);
    assert.equal((await batch({}, '2001:db8:7:7:ffff::9')).statusCode, 429, 'same /64');
    assert.equal((await batch({}, '2001:db8:7:8::1')).statusCode, 400, 'neighbouring /64');
  });
});
