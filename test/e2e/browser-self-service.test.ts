import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { issueSetupToken } from '../../src/modules/instance/setup.js';
import { importFeeds } from '../../src/modules/vulndb/import-feeds.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { launchChromium, noChromium } from '../helpers/browser.js';
import { makeTestKeys } from '../helpers/openpgp-keys.js';
import { freePort } from '../helpers/processes.js';

/**
 * Issue 20 "Done when": a new administrator goes from set-up to a published policy, contact,
 * OpenPGP key and two products in Chromium, without the API or the CLI, and the portal,
 * security.txt and compliance reflect each step; bad input comes back on the form, nothing saved.
 * Issue 37: set-up signs the administrator in, and the overview's getting-started checklist is
 * followed to its last tick from the dashboard (the feeds, the operator's, loaded as the CLI does).
 */
describe('company self-service in a real browser', { skip: noChromium }, () => {
  let t: TestApp;
  let browser: Browser;
  let site = '';
  let portal = '';
  let keys: Awaited<ReturnType<typeof makeTestKeys>>;
  const slug = 'globex';
  const email = 'admin@globex.example';
  const password = 'a long enough passphrase';

  before(async () => {
    const port = await freePort();
    site = `http://localhost:${port}`;
    portal = `http://${slug}.localhost:${port}`;
    t = await createTestApp({ PUBLIC_URL: site });
    await t.app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
    keys = await makeTestKeys('psirt@globex.example');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A portal address read as a researcher's client would (Node's fetch does not resolve *.localhost). */
  const text = async (url: string) => {
    const u = new URL(url);
    return (await t.app.inject({ url: `${u.pathname}${u.search}`, headers: { host: u.host } })).body;
  };
  const submit = (page: Page, form: string) => Promise.all([page.waitForLoadState('load'), page.click(`${form} button[type=submit]`)]);
  const nextTask = async (page: Page) => {
    await page.goto(`${site}/compliance`);
    return page.locator('#next-task').innerText();
  };

  it('sets up, publishes the policy, contact and key, registers two products, and every surface follows', async () => {
    const token = (await issueSetupToken(t.database.db)) as string;
    const page = await (await browser.newContext()).newPage();

    // Set-up, then sign in.
    await page.goto(`${site}/setup`);
    await page.fill('#token', token);
    await page.fill('#companyName', 'Globex Devices');
    await page.fill('#slug', slug);
    await page.selectOption('#plan', 'enterprise');
    await page.fill('#email', email);
    await page.fill('#password', password);
    await submit(page, 'form');
    // Set-up signs the administrator in and lands on the overview, where the checklist starts.
    assert.equal(new URL(page.url()).pathname, '/dashboard');
    assert.match(await page.locator('main .notice.ok').innerText(), /Cradle is set up: Globex Devices/);
    assert.match(await page.locator('section.getting-started').innerText(), /0 of 8 done/);

    // Compliance is honest at once: no product, no policy, no contact.
    assert.match(await nextTask(page), /Register your first product/);
    const gaps = page.locator('#company-gaps-title + table');
    assert.match(await gaps.innerText(), /no disclosure policy is published/);
    assert.equal(await gaps.locator('tr[data-requirement="cra-ai-p2-5"] a').getAttribute('href'), '/settings/portal');
    assert.ok(!(await text(`${portal}/.well-known/security.txt`)).includes('Policy:'));

    // Bad input comes back on the form, and nothing is saved.
    await page.getByRole('link', { name: 'Publish the disclosure policy in the portal settings.' }).click();
    assert.equal(new URL(page.url()).pathname, '/settings/portal');
    await page.fill('#policyText', 'We <b>love</b> reports.');
    await page.fill('#policyUrl', 'http://globex.example/policy');
    await page.fill('#securityEmail', 'psirt at globex');
    await page.fill('#pgpPublicKey', keys.privateKey);
    await submit(page, 'form[action="/settings/portal"]');
    assert.match(await page.locator('.notice.bad').innerText(), /Nothing was saved: 4 fields need correcting/);
    assert.match(await page.locator('#policyText-error').innerText(), /HTML is not allowed here/);
    assert.match(await page.locator('#policyUrl-error').innerText(), /https:\/\//);
    assert.match(await page.locator('#securityEmail-error').innerText(), /must be an e-mail address/);
    assert.match(await page.locator('#pgpPublicKey-error').innerText(), /PRIVATE key/);
    assert.equal(await page.inputValue('#securityEmail'), 'psirt at globex', 'what was typed is kept');
    assert.ok(!(await text(`${portal}/`)).includes('love'), 'the portal shows nothing of it');

    // Policy, contact and key, corrected and published.
    await page.fill('#policyText', '## Our promise\n\nWe **love** reports.');
    await page.fill('#policyUrl', '');
    await page.fill('#securityEmail', 'psirt@globex.example');
    await page.fill('#pgpPublicKey', keys.publicKey);
    await page.fill('#acknowledgeDays', '2');
    await submit(page, 'form[action="/settings/portal"]');
    assert.match(await page.locator('.notice.ok').innerText(), /Saved and published/);
    assert.equal(await page.locator('#pgp-fingerprint code').innerText(), keys.fingerprint);

    const landing = await browser.newPage();
    await landing.goto(`${portal}/`);
    assert.equal(await landing.locator('.policy h2').innerText(), 'Our promise');
    assert.equal(await landing.locator('.policy strong').innerText(), 'love');
    assert.match(await landing.locator('ol.steps').innerText(), /acknowledge it within 2 days/);
    assert.equal(await landing.locator('a[href="mailto:psirt@globex.example"]').count(), 1);
    const txt = await text(`${portal}/.well-known/security.txt`);
    assert.ok(txt.includes('Contact: mailto:psirt@globex.example\n'));
    assert.ok(txt.includes(`Encryption: ${portal}/pgp-key.txt\n`));
    assert.ok(txt.includes(`Policy: ${portal}/policy\n`));
    assert.match(await text(`${portal}/pgp-key.txt`), /^-----BEGIN PGP PUBLIC KEY BLOCK-----/);

    // Company gaps closed; the next task is still the first product.
    assert.match(await nextTask(page), /Register your first product/);
    assert.equal(await page.locator('#company-gaps-title').count(), 1, 'only the missing products remain company-wide');
    assert.equal(await page.locator('tr[data-requirement="cra-ai-p2-5"]').count(), 0);

    // Two products, from the link of the next task.
    await page.locator('#next-task a').click();
    assert.equal(new URL(page.url()).pathname, '/products');
    for (const [name, identifier, ends] of [
      ['Globex Cam', 'cam-1', '2032-06-30'],
      ['Globex Hub', 'hub-2', ''],
    ] as const) {
      await page.goto(`${site}/products`);
      await page.fill('#name', name);
      await page.fill('#identifier', identifier);
      await page.selectOption('#category', 'important_i');
      await page.fill('#placedOnMarketAt', '2026-03-01');
      if (ends) await page.fill('#supportEndsAt', ends);
      await submit(page, 'form[action="/products"]');
      assert.equal(new URL(page.url()).pathname, `/products/${identifier}`);
      assert.match(await page.locator('.notice.ok').innerText(), /registered/);
    }
    await page.goto(`${site}/products`);
    assert.equal(await page.locator('tr[data-product]').count(), 2);
    const form = await text(`${portal}/submit`);
    assert.ok(form.includes('Globex Cam') && form.includes('Globex Hub'), 'both in the portal dropdown');

    // Compliance judges both; the hub's missing support end links to its page, which closes it.
    await page.goto(`${site}/compliance`);
    assert.equal(await page.locator('table.data a[href="/compliance?product=cam-1"]').count(), 1);
    assert.ok(!(await page.locator('#next-task').innerText()).includes('Register your first product'));
    await page.goto(`${site}/compliance?product=hub-2`);
    const support = page.locator('tr[data-requirement="cra-aii-7-support-end"]');
    assert.match(await support.innerText(), /gap/);
    await support.locator('a[href="/products/hub-2"]').click();
    await page.fill('#supportEndsAt', '2031-12-31');
    await submit(page, 'form[action="/products/hub-2"]');
    await page.goto(`${site}/compliance?product=hub-2`);
    assert.match(await page.locator('tr[data-requirement="cra-aii-7-support-end"]').innerText(), /met/);

    // The checklist to its last tick, each step from the page its link opens.
    const done = async () => {
      await page.goto(`${site}/dashboard`);
      const items = await page.locator('ol.checklist li.done').all();
      return Promise.all(items.map((i) => i.getAttribute('id')));
    };
    const open = async (step: string) => {
      await page.goto(`${site}/dashboard`);
      await Promise.all([page.waitForLoadState('load'), page.locator(`#step-${step} a`).click()]);
    };
    assert.deepEqual(await done(), ['step-policy', 'step-contact', 'step-product']);
    await open('key');
    await page.fill('#name', 'CI pipeline');
    await submit(page, 'form[action="/settings/api-keys"]');
    await open('sbom');
    await page.selectOption('#sbom-product', 'cam-1');
    const bom = {
      bomFormat: 'CycloneDX',
      specVersion: '1.6',
      version: 1,
      metadata: { component: { type: 'device', name: 'Globex Cam', version: '1.0.0' } },
      components: [],
    };
    await page.setInputFiles('#sbom-document', { name: 'cam.cdx.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(bom)) });
    await submit(page, 'form[action="/evidence/sboms"]');
    await open('team');
    await page.fill('#invite-email', 'analyst@globex.example');
    await submit(page, '#invite-form');
    await open('notify');
    await page.fill('#url', 'https://tickets.globex.example/hooks/cradle');
    await submit(page, 'form[action="/settings/webhooks"]');
    assert.deepEqual(await done(), ['step-policy', 'step-contact', 'step-key', 'step-product', 'step-sbom', 'step-team', 'step-notify']);
    // The feeds are the operator's (the CLI or a periodic sync): once loaded, the last step ticks and the checklist is done.
    await importFeeds(t.database.db, '../shared/data/vulndb/kev');
    await page.goto(`${site}/dashboard`);
    assert.equal(await page.locator('section.getting-started').count(), 0, 'every step done: the checklist gives way');
  });
});
