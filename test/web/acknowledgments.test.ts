import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { reviseAdvisory, withdrawAdvisory } from '../../src/modules/advisories/release-advisory.js';
import { updateAdvisory } from '../../src/modules/advisories/update-advisory.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { updatePortalSettings } from '../../src/modules/companies/portal-settings.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { creditedAdvisory, testTarget } from '../helpers/advisories.js';
import { makeCompany } from '../helpers/factories.js';
import { fieldValues, parseSecurityTxt } from '../helpers/security-txt.js';

let t: TestApp;
before(async () => {
  // https: RFC 9116 asks web URIs in security.txt to be https, and the reader here checks it.
  t = await createTestApp({ PUBLIC_URL: 'https://cradle.example.test' });
});
after(() => t.close());

const portalHost = (slug: string) => `${slug}.cradle.example.test`;
const get = (c: Company, url: string) => t.app.inject({ url, headers: { host: portalHost(c.slug) } });
const ackField = async (c: Company) => {
  const p = parseSecurityTxt((await get(c, '/.well-known/security.txt')).body, new Date());
  assert.deepEqual(p.errors, []);
  return fieldValues(p, 'acknowledgments');
};
/** The researchers the page lists, in page order, as text (tags stripped, entities kept). */
const listed = (body: string): string[] =>
  [...(/<ul class="credits" id="credits">([\s\S]*?)<\/ul>/.exec(body)?.[1] ?? '').matchAll(/<li><strong>(.*?)<\/strong>/g)].map((m) => m[1] ?? '');

describe('GET {portal_url}/acknowledgments', () => {
  it('says no one is credited yet, and security.txt names no Acknowledgments page', async () => {
    const c = await makeCompany(t.database.db);
    const res = await get(c, '/acknowledgments');
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /id="no-acknowledgments">No one has been credited yet/);
    assert.deepEqual(await ackField(c), []);
  });

  it('lists the researchers of published advisories only: never a draft, a withdrawn advisory or another company', async () => {
    const acme = await makeCompany(t.database.db, { name: 'Acme' });
    const other = await makeCompany(t.database.db, { name: 'Other' });
    const pub = await creditedAdvisory(t.database.db, acme, ['Jane Published', 'Bob Both'], { title: 'Login bypass' });
    await creditedAdvisory(t.database.db, acme, ['Bob Both'], { title: 'Second finding' });
    await creditedAdvisory(t.database.db, acme, ['Dora Draft'], { publish: false });
    const gone = await creditedAdvisory(t.database.db, acme, ['Walter Withdrawn']);
    await withdrawAdvisory(t.database.db, operatorContext(), testTarget(acme), gone.id, { reason: 'not a vulnerability' });
    await creditedAdvisory(t.database.db, other, ['Olga Other']);

    const res = await get(acme, '/acknowledgments');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'public, max-age=300', 'cached like the advisory pages it is derived from');
    assert.deepEqual(listed(res.body), ['Bob Both', 'Jane Published'], 'each researcher once, in name order');
    for (const absent of ['Dora Draft', 'Walter Withdrawn', 'Olga Other']) assert.ok(!res.body.includes(absent), absent);
    const bob = /<li><strong>Bob Both<\/strong>(.*?)<\/li>/.exec(res.body)?.[1] ?? '';
    assert.equal((bob.match(/<a href="\/advisories\//g) ?? []).length, 2, 'Bob is credited on both advisories');
    const jane = /<li><strong>Jane Published<\/strong>(.*?)<\/li>/.exec(res.body)?.[1] ?? '';
    const page = `/advisories/${pub.trackingId.toLowerCase()}`;
    assert.ok(jane.includes(`<a href="${page}">${pub.trackingId}</a> (Login bypass, <time datetime="`), jane);
    assert.match(jane, /<time datetime="\d{4}-\d{2}-\d{2}T[^"]+">\d{4}-\d{2}-\d{2}<\/time>/);
    assert.equal((await get(acme, page)).statusCode, 200, 'the credit links to the advisory page');

    assert.deepEqual(listed((await get(other, '/acknowledgments')).body), ['Olga Other']);
    assert.deepEqual(await ackField(acme), [`https://${portalHost(acme.slug)}/acknowledgments`]);
  });

  it("shows an edit of a published advisory's credits only once it is released as a revision", async () => {
    const c = await makeCompany(t.database.db);
    const a = await creditedAdvisory(t.database.db, c, ['First Finder']);
    assert.deepEqual(listed((await get(c, '/acknowledgments')).body), ['First Finder']);
    await updateAdvisory(t.database.db, operatorContext(), c, testTarget(c).distributionUrl, a.id, {
      acknowledgments: [
        { name: 'First Finder', consent: true },
        { name: 'Late Addition', consent: true },
      ],
    });
    assert.deepEqual(listed((await get(c, '/acknowledgments')).body), ['First Finder'], 'the working copy is not public');
    await reviseAdvisory(t.database.db, operatorContext(), testTarget(c), a.id, { summary: 'Credit added' });
    assert.deepEqual(listed((await get(c, '/acknowledgments')).body), ['First Finder', 'Late Addition']);
  });

  it('escapes names and titles', async () => {
    const c = await makeCompany(t.database.db);
    const payload = '<script>alert(1)</script>"><img src=x onerror=alert(2)>';
    await creditedAdvisory(t.database.db, c, [payload], { title: `Title <b>${payload}</b>` });
    const body = (await get(c, '/acknowledgments')).body;
    assert.ok(!body.includes('<script>alert') && !body.includes('<img') && !body.includes('<b>'), 'no markup from the data');
    assert.deepEqual(listed(body), ['&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(2)&gt;']);
  });

  it("adds the company's own Markdown list, which alone is enough for security.txt to name the page", async () => {
    const c = await makeCompany(t.database.db);
    await updatePortalSettings(t.database.db, t.config, operatorContext(), c.id, { acknowledgmentsText: '- **Early Bird** (2023): the first report' });
    const res = await get(c, '/acknowledgments');
    assert.match(res.body, /id="earlier-acknowledgments"><ul>\n<li><strong>Early Bird<\/strong> \(2023\): the first report<\/li>/);
    assert.ok(!res.body.includes('No one has been credited yet'));
    assert.deepEqual(await ackField(c), [`https://${portalHost(c.slug)}/acknowledgments`]);
    await assert.rejects(
      updatePortalSettings(t.database.db, t.config, operatorContext(), c.id, { acknowledgmentsText: 'Thanks <img src=x onerror=alert(1)>' }),
      (e: { extra?: { issues?: { path: string; message: string }[] } }) =>
        e.extra?.issues?.[0]?.path === 'acknowledgmentsText' && /HTML is not allowed/.test(e.extra.issues[0].message),
    );
  });

  it('is linked from the landing page', async () => {
    const c = await makeCompany(t.database.db);
    assert.match((await get(c, '/')).body, /<a href="\/acknowledgments">acknowledgments<\/a>/);
  });
});
