import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { auditLog, upstreamSettings } from '../../src/db/schema/index.js';
import { asSystem } from '../../src/db/tenant-scope.js';
import { makeTenant, type Tenant } from '../helpers/access.js';
import type { TestApp } from '../helpers/app.js';
import { browserAppSuite, noChromium, signInPage } from '../helpers/browser.js';

/** Issue 34: an administrator declares the packages the company maintains and sets its GitHub token; another company's member finds it as the upstream. */
describe('upstream pages in a real browser', { skip: noChromium }, () => {
  const suite = browserAppSuite();
  let browser: Browser;
  let site = '';
  let t: TestApp;
  let acme: Tenant;
  let other: Tenant;
  before(async () => {
    ({ browser, site, acme, t } = await suite.ready);
    other = await makeTenant(t.database.db);
  });

  const signedIn = (email: string) => signInPage(browser, site, email);

  it('an administrator saves packages (a bad one comes back with its message and the typed text) and a sealed token', async () => {
    const { page, problems } = await signedIn(acme.admin.email);
    await Promise.all([page.waitForURL(/\/upstream-contacts$/), page.click('header a[href="/upstream-contacts"]')]);
    await Promise.all([page.waitForURL(/\/settings\/upstream$/), page.click('main a[href="/settings/upstream"]')]);
    await page.fill('#prefixes', 'pkg:npm/@acme/widget\npkg:npm/');
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Save the packages")')]);
    assert.match(await page.locator('#prefixes-error').innerText(), /pkg:npm\/: a package URL starts with pkg:<type>\//);
    assert.equal(await page.locator('#prefixes').inputValue(), 'pkg:npm/@acme/widget\npkg:npm/');
    await page.fill('#prefixes', 'pkg:npm/@acme/widget\npkg:maven/com.acme/');
    await Promise.all([page.waitForURL(/done=packages/), page.click('button:has-text("Save the packages")')]);
    assert.equal(await page.locator('#prefixes').inputValue(), 'pkg:npm/%40acme/widget\npkg:maven/com.acme/');

    const token = 'github_pat_11BROWSERtestTokenValue0123456789';
    await page.fill('#githubToken', token);
    await Promise.all([page.waitForURL(/done=token/), page.click('button:has-text("Save the token")')]);
    assert.match(await page.locator('#token-state').innerText(), /A token is set/);
    assert.equal(await page.locator('#githubToken').inputValue(), '', 'the token is never shown again');
    assert.doesNotMatch(await page.content(), /BROWSERtestToken/);
    const row = (await asSystem(() => t.database.db.select().from(upstreamSettings).where(eq(upstreamSettings.companyId, acme.company.id))))[0];
    assert.match(row?.githubToken ?? '', /^sb1\./);
    assert.doesNotMatch(row?.githubToken ?? '', /BROWSERtestToken/);
    await Promise.all([page.waitForURL(/done=removed/), page.click('button:has-text("Remove the token")')]);
    assert.match(await page.locator('#token-state').innerText(), /No token is set/);
    const actions = (await asSystem(() => t.database.db.select().from(auditLog).where(eq(auditLog.companyId, acme.company.id)))).map((a) => a.action);
    for (const a of ['upstream.maintained_packages', 'upstream.github_token_set', 'upstream.github_token_removed']) assert.ok(actions.includes(a), a);
    assert.deepEqual(problems, []);
  });

  it("another company's member looks a component up and finds that company, with every source's outcome", async () => {
    const { page, problems } = await signedIn(other.admin.email);
    await page.goto(`${site}/upstream-contacts`);
    await page.fill('#purl', 'not a purl');
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Find the maintainer")')]);
    assert.match(await page.locator('#purl-error').innerText(), /not a valid package URL/);
    await page.fill('#purl', 'pkg:maven/com.acme/core@1.4.0');
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Find the maintainer")')]);
    const contacts = await page.locator('#contacts tbody tr').allInnerTexts();
    assert.equal(contacts.length, 1);
    assert.match(contacts[0] ?? '', new RegExp(`Cradle \\(this instance\\)\\s+${acme.company.slug}`));
    assert.match(contacts[0] ?? '', /A company on this Cradle instance/);
    const sources = await page.locator('#sources tbody tr').allInnerTexts();
    assert.deepEqual(
      sources.map((s) => s.split('\t')[0]?.split('\n')[0]),
      ['GitHub private vulnerability reporting', 'security.txt', 'SECURITY.md', 'security-insights.yml', 'A company on this Cradle instance'],
    );
    assert.deepEqual(problems, []);
  });
});
