import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { Secret, TOTP } from 'otpauth';
import type { Tenant } from '../helpers/access.js';
import { browserAppSuite, noChromium } from '../helpers/browser.js';
import { TEST_PASSWORD } from '../helpers/factories.js';

/** Issue 20 part 4: a member turns on a TOTP second factor through the pages (with the current password: issue 32) and signs in again with a code. */
describe('second factor in a real browser', { skip: noChromium }, () => {
  const suite = browserAppSuite();
  let browser: Browser;
  let site = '';
  let acme: Tenant;
  before(async () => {
    ({ browser, site, acme } = await suite.ready);
  });

  it('enrols from the account page, shows the QR code and recovery codes, and asks for a code at the next sign-in', async () => {
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      // A missing /favicon.ico is not a problem; a refused inline style or script would be.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
    });
    const signInWithPassword = async () => {
      await page.goto(`${site}/login`);
      await page.fill('#email', acme.admin.email);
      await page.fill('#password', TEST_PASSWORD);
      await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
    };

    await signInWithPassword();
    assert.match(page.url(), /\/dashboard$/);
    await Promise.all([page.waitForURL(/\/account$/), page.click(`header a[href="/account"]`)]);
    await Promise.all([page.waitForURL(/\/account\/second-factor$/), page.click('a[href="/account/second-factor"]')]);
    // Issue 32 finding 2: the session alone does not start a set-up; the current password does.
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Set up an authenticator app")')]);
    assert.match(await page.locator('.notice.bad').innerText(), /current password is wrong/);
    assert.equal(await page.locator('#totp-secret').count(), 0);
    await page.fill('#start-password', TEST_PASSWORD);
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Set up an authenticator app")')]);

    const qr = await page.locator('div.qr svg').boundingBox();
    assert.ok(qr && qr.width > 100 && qr.height > 100, 'the QR code is drawn at a scannable size');
    const secret = (await page.locator('#totp-secret').innerText()).replace(/\s/g, '');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const code = (steps: number) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });
    // Reloaded, the page no longer shows the key: only the answer to the password did.
    await page.goto(`${site}/account/second-factor`);
    assert.equal(await page.locator('#totp-secret').count(), 0);
    await page.fill('#code', code(0));
    await Promise.all([page.waitForLoadState('load'), page.click('button:has-text("Turn on")')]);
    const codes = (await page.locator('#recovery-codes').innerText()).trim().split('\n');
    assert.equal(codes.length, 10);

    await Promise.all([page.waitForURL(/\/login$/), page.click('header button:has-text("Sign out")')]);
    await signInWithPassword();
    assert.equal(await page.locator('h1').innerText(), 'Enter your code');
    await page.fill('#code', code(1));
    await Promise.all([page.waitForURL(/\/dashboard$/), page.click('button:has-text("Sign in")')]);
    assert.match(await page.locator('header .user').innerText(), new RegExp(acme.admin.email.replace(/[.]/g, '\\.')));
    assert.deepEqual(problems, [], 'no CSP or script errors on the way');
  });
});
