import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { Tenant } from '../helpers/access.js';
import { browserAppSuite, noChromium } from '../helpers/browser.js';
import { TEST_PASSWORD } from '../helpers/factories.js';

/**
 * Issue 20 "Done when": an administrator invites a viewer in the dashboard (mail off: the page shows
 * the link), the viewer opens it, chooses a password and lands on the dashboard, where the portal
 * settings, team and API key pages show no form that changes anything; the link fails the second time.
 */
describe('team invitations in a real browser', { skip: noChromium }, () => {
  const suite = browserAppSuite();
  let browser: Browser;
  let site = '';
  let acme: Tenant;
  before(async () => {
    ({ browser, site, acme } = await suite.ready);
  });

  it('invites a viewer who joins through the link and can change nothing', async () => {
    const admin = await (await browser.newContext()).newPage();
    await admin.goto(`${site}/login`);
    await admin.fill('#email', acme.admin.email);
    await admin.fill('#password', TEST_PASSWORD);
    await Promise.all([admin.waitForURL(`${site}/dashboard`), admin.click('button[type=submit]')]);
    await admin.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Team', exact: true }).click();
    assert.match(await admin.locator('#mail-off').innerText(), /E-mail is off/);
    await admin.fill('#invite-email', 'auditor@example.test');
    await admin.selectOption('#invite-role', 'viewer');
    await Promise.all([admin.waitForLoadState('load'), admin.click('#invite-form button[type=submit]')]);
    const link = await admin.inputValue('#invite-link');
    assert.match(link, new RegExp(`^${site}/invite/[0-9a-f]{64}$`));
    assert.match(await admin.locator('#invitations').innerText(), /auditor@example\.test\s+Viewer/);

    const viewer = await (await browser.newContext()).newPage();
    await viewer.goto(link);
    assert.match(await viewer.locator('h1').innerText(), new RegExp(`Join ${acme.company.name}`));
    assert.equal(await viewer.locator('#invited-role').innerText(), 'Viewer');
    assert.equal(await viewer.inputValue('#email'), 'auditor@example.test');
    await viewer.fill('#password', 'tulip harbour seventy lanterns');
    await Promise.all([viewer.waitForURL(`${site}/dashboard`), viewer.click('button[type=submit]')]);
    assert.match(await viewer.locator('.account .role').innerText(), /Viewer/);

    for (const path of ['/settings/portal', '/settings/team', '/settings/api-keys', '/settings/webhooks', '/products']) {
      const res = await viewer.goto(`${site}${path}`);
      assert.equal(res?.status(), 200, path);
      const forms = await viewer.locator('main form[method="post"]').count();
      assert.equal(forms, 0, `${path} shows the viewer ${forms} form(s)`);
    }
    assert.equal(await viewer.getByRole('button', { name: /Remove|Change role|Revoke|Rotate|Send invitation|Create key/ }).count(), 0);
    await viewer.goto(`${site}/settings/team`);
    assert.match(await viewer.locator('#members').innerText(), /auditor@example\.test \(you\)\s+Viewer/);
    assert.equal(await viewer.getByRole('button', { name: /Remove|Change role|Revoke|Send again|Send invitation/ }).count(), 0);

    // The link worked once.
    const again = await (await browser.newContext()).newPage();
    const res = await again.goto(link);
    assert.equal(res?.status(), 410);
    assert.match(await again.locator('h1').innerText(), /already used/);

    // The administrator sees the new member and no pending invitation.
    await admin.goto(`${site}/settings/team`);
    assert.match(await admin.locator('#members').innerText(), /auditor@example\.test/);
    assert.equal(await admin.locator('#invitations').count(), 0);
  });
});
