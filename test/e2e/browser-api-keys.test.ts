import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, noChromium } from '../helpers/browser.js';
import { makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { TEST_PASSWORD } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';

const skip = noChromium;

describe('API keys in a real browser', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let origin = '';
  let acme: Tenant;

  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    // PUBLIC_URL carries the real port: the Origin the browser sends must be the site's own.
    t = await createTestApp({ PUBLIC_URL: origin });
    acme = await makeTenant(t.database.db);
    await t.app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const apiStatus = async (key: string) => (await fetch(`${origin}/api/v1/products`, { headers: { authorization: `Bearer ${key}` } })).status;

  it('signs in, creates a key, sees it once, rotates it and revokes it', async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    const page = await context.newPage();

    await page.goto(`${origin}/settings/api-keys`);
    assert.match(page.url(), /\/login\?next=/);
    await page.fill('#email', acme.admin.email);
    await page.fill('#password', TEST_PASSWORD);
    await Promise.all([page.waitForURL(`${origin}/settings/api-keys`), page.click('button[type=submit]')]);
    assert.equal(
      await page
        .locator('.account .company')
        .innerText()
        .then((s) => s.includes(acme.company.name)),
      true,
    );

    await page.fill('#name', 'Browser CI key');
    await page.check('input[name=scopes][value=read]');
    await Promise.all([page.waitForLoadState('load'), page.click('form[action="/settings/api-keys"] button[type=submit]')]);
    const key = await page.inputValue('#new-key');
    assert.match(key, /^[0-9a-f]{64}$/);
    // The copy button is shown only with script, and copies the value.
    const copy = page.locator('button[data-copy="new-key"]');
    assert.equal(await copy.isVisible(), true);
    await copy.click();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key);
    assert.equal(await apiStatus(key), 200);

    // Shown once: a fresh load of the page no longer holds it.
    await page.goto(`${origin}/settings/api-keys`);
    assert.equal((await page.content()).includes(key), false);
    assert.equal(await page.locator('#new-key').count(), 0);
    const row = page.locator('tr', { hasText: 'Browser CI key' });
    assert.equal(await row.locator('code').first().innerText(), `…${key.slice(-4)}`);

    await Promise.all([page.waitForLoadState('load'), row.getByRole('button', { name: 'Rotate' }).click()]);
    const rotated = await page.inputValue('#new-key');
    assert.match(rotated, /^[0-9a-f]{64}$/);
    assert.notEqual(rotated, key);
    assert.equal(await apiStatus(key), 401);
    assert.equal(await apiStatus(rotated), 200);

    await page.goto(`${origin}/settings/api-keys`);
    await Promise.all([
      page.waitForURL(/revoked=1/),
      page
        .locator('tr', { hasText: 'Browser CI key' })
        .getByRole('button', { name: /Revoke/ })
        .click(),
    ]);
    assert.equal(await page.locator('tr', { hasText: 'Browser CI key' }).count(), 0);
    assert.equal(await apiStatus(rotated), 401);

    await Promise.all([page.waitForURL(/\/login$/), page.getByRole('button', { name: 'Sign out' }).click()]);
    await page.goto(`${origin}/dashboard`);
    assert.match(page.url(), /\/login\?next=/);
    await context.close();
  });
});
