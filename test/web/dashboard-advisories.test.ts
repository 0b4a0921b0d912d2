import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { updateAdvisory } from '../../src/modules/advisories/update-advisory.js';
import { publishedAdvisory, readyDraft, testTarget } from '../helpers/advisories.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';

let t: TestApp;
let acme: Tenant;
let rival: Tenant;
let cookie = '';

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  rival = await makeTenant(t.database.db);
  cookie = await signInCookie(t, acme.admin.email);
});
after(() => t.close());

describe('the dashboard advisories page', () => {
  it("lists the company's drafts and released advisories, escaped, never another company's", async () => {
    const draft = await readyDraft(t.database.db, acme.company);
    await updateAdvisory(t.database.db, operatorContext(), acme.company, testTarget(acme.company).distributionUrl, draft.id, {
      title: 'Bypass <img src=x onerror=alert(1)>',
    });
    const published = await publishedAdvisory(t.database.db, acme.company);
    const theirs = await publishedAdvisory(t.database.db, rival.company);
    const res = await t.app.inject({ url: '/advisories', headers: { host: SITE, cookie } });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /aria-current="page">Advisories</);
    assert.ok(res.body.includes('Bypass &lt;img src=x onerror=alert(1)&gt;'));
    assert.match(res.body, new RegExp(`<code>${draft.trackingId}</code>.*?Draft \\(not public\\)`, 's'));
    assert.match(res.body, new RegExp(`<code>${published.trackingId}</code>.*?Published.*?href="${published.publicUrl}"`, 's'));
    assert.ok(!res.body.includes(theirs.trackingId));
  });

  it('sends a visitor without a session to sign in', async () => {
    const res = await t.app.inject({ url: '/advisories', headers: { host: SITE } });
    assert.equal(res.statusCode, 303);
    assert.match(String(res.headers.location), /^\/login\?next=%2Fadvisories/);
  });
});
