import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { LAYOUT_WIDTHS, launchChromium, noChromium, overflowingElements } from '../helpers/browser.js';
import { buildApp } from '../../src/app.js';
import { operatorContext } from '../../src/kernel/context.js';
import { createMemoryRateLimiter } from '../../src/kernel/rate-limit.js';
import type { Company } from '../../src/modules/companies/companies.schemas.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { makeCompany } from '../helpers/factories.js';
import { intakeState } from '../helpers/intake.js';

/** A free loopback port: PUBLIC_URL must name the port before the app is built. */
const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

let database: TestDatabase;
let app: FastifyInstance;
let browser: Browser;
let company: Company;
let portal: string;

before(async () => {
  if (noChromium) return;
  database = await createTestDatabase();
  const port = await freePort();
  app = await buildApp({ config: testConfig({ PUBLIC_URL: `http://localhost:${port}` }), database, rateLimiter: createMemoryRateLimiter() });
  await app.listen({ host: '127.0.0.1', port });
  company = await makeCompany(database.db, { name: 'Acme Devices', securityEmail: 'psirt@acme.example' });
  await upsertProduct(database.db, operatorContext(), company.id, { identifier: 't2', name: 'Smart Thermostat T2' });
  await upsertProduct(database.db, operatorContext(), company.id, { identifier: 'cam', name: 'Door Camera' });
  // Chromium resolves *.localhost to loopback by itself; the rule only pins it to IPv4, where we listen.
  browser = await launchChromium();
  portal = `http://${company.slug}.localhost:${port}`;
});

after(async () => {
  await browser?.close();
  await app?.close();
  await database?.drop();
});

/** A page that records every dialog (alert, confirm, prompt) and script error it sees. */
async function watchedPage(): Promise<{ page: Page; dialogs: string[]; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, javaScriptEnabled: true });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, dialogs, errors };
}

describe('portal in Chromium', { skip: noChromium }, () => {
  it('opens a portal, chooses a product, files a report and sees the confirmation', async () => {
    const { page } = await watchedPage();
    await page.goto(`${portal}/`);
    assert.equal(await page.locator('h1').innerText(), 'Report a security vulnerability to Acme Devices');
    await page.getByRole('link', { name: 'Report a vulnerability' }).first().click();
    await page.waitForURL(`${portal}/submit`);
    await page.selectOption('#productName', 'Door Camera');
    await page.selectOption('#vulnerabilityType', 'hardcoded_credentials');
    await page.fill('#description', 'The camera ships with root:root enabled on telnet.');
    await page.fill('#contactEmail', 'finder@example.org');
    await page.getByRole('button', { name: 'Send report' }).click();
    await page.waitForSelector('#submission-id');
    assert.match(await page.locator('h1').innerText(), /your report was received/);
    const id = await page.locator('#submission-id').innerText();
    const createdAt = await page.locator('#created-at').getAttribute('datetime');
    const [row] = (await intakeState(database.db, company.id)).reports.filter((r) => r.id === id);
    assert.equal(row?.productName, 'Door Camera');
    assert.equal(row?.vulnerabilityType, 'hardcoded_credentials');
    assert.equal(row?.contactEmail, 'finder@example.org');
    assert.equal(row?.createdAt.toISOString(), createdAt);
    // The private link leads to the status page.
    await page.locator('#status-link').click();
    await page.waitForSelector('#report-status');
    assert.match(await page.locator('#report-status').innerText(), /^new/);
    await page.context().close();
  });

  it('shows server-side validation with the typed text kept, without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`${portal}/submit`);
    await page.fill('#impact', 'Anyone on the LAN can watch the feed.');
    await page.fill('#contactEmail', 'not an address');
    await page.getByRole('button', { name: 'Send report' }).click();
    await page.waitForSelector('#description-error');
    assert.equal(await page.locator('#description-error').innerText(), 'Description must not be empty.');
    assert.equal(await page.locator('#impact').inputValue(), 'Anyone on the LAN can watch the feed.');
    assert.equal(await page.locator('#contactEmail').inputValue(), 'not an address');
    await context.close();
  });

  it('files script and markup payloads as text: nothing executes, nothing is injected', async () => {
    const { page, dialogs, errors } = await watchedPage();
    const payloads = {
      description: '<script>alert("desc")</script><img src=x onerror=alert("img")>',
      stepsToReproduce: '</textarea><svg onload=alert("svg")><iframe src="javascript:alert(1)"></iframe>',
      impact: '"><b id="injected">bold</b><a href="javascript:alert(2)">x</a>',
    };
    await page.goto(`${portal}/submit`);
    for (const [f, v] of Object.entries(payloads)) await page.fill(`#${f}`, v);
    // First an invalid submission, so the payloads also pass through the re-rendered form.
    await page.fill('#contactEmail', '<script>alert("mail")</script>');
    await page.getByRole('button', { name: 'Send report' }).click();
    await page.waitForSelector('#contactEmail-error');
    assert.equal(await page.locator('#stepsToReproduce').inputValue(), payloads.stepsToReproduce);
    assert.equal(await page.locator('#impact').inputValue(), payloads.impact);
    await page.fill('#contactEmail', '');
    await page.getByRole('button', { name: 'Send report' }).click();
    await page.waitForSelector('#submission-id');
    assert.equal(await page.locator('pre.sent').innerText(), payloads.description, 'shown as text');
    for (const sel of ['img[src="x"]', 'svg', 'iframe', '#injected', 'main script', 'a[href^="javascript:"]']) {
      assert.equal(await page.locator(sel).count(), 0, `no ${sel} element`);
    }
    await page.locator('#status-link').click();
    await page.waitForSelector('#report-status');
    assert.deepEqual(dialogs, [], 'no dialog ever opened');
    assert.deepEqual(errors, []);
    const stored = (await intakeState(database.db, company.id)).reports.find((r) => r.description === payloads.description);
    assert.equal(stored?.stepsToReproduce, payloads.stepsToReproduce, 'stored exactly as typed');
    await page.context().close();
  });

  it('no portal page scrolls sideways at 390, 1024 and 1280 px, the re-rendered forms included', async () => {
    // Each page is saved as a screenshot (SCREENSHOT_DIR, as the dashboard's layout test does) so a
    // person can look at them. The long unbroken line is what a researcher pastes: a URL, a hash.
    const shots = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'cradle-portal-screenshots');
    mkdirSync(shots, { recursive: true });
    const long = `https://device.example/${'a'.repeat(300)}`;
    const wide: string[] = [];
    const seen: string[] = [];
    for (const width of LAYOUT_WIDTHS) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const check = async (name: string) => {
        seen.push(`${name}@${width}`);
        await page.screenshot({ path: join(shots, `${width}-${name}.png`), fullPage: true });
        const over = await overflowingElements(page);
        if (over.length) wide.push(`${name} at ${width} px: ${over.join(', ')}`);
      };
      await page.goto(`${portal}/`);
      await check('home');
      await page.goto(`${portal}/submit`);
      await check('form');
      // Invalid: every field's error shown beside the kept text.
      await page.fill('#stepsToReproduce', long);
      await page.fill('#contactEmail', 'not an address');
      await page.getByRole('button', { name: 'Send report' }).click();
      await page.waitForSelector('#description-error');
      await check('form-errors');
      // Text the database cannot store: the notice above the kept text.
      await page.fill('#description', `${long} with a NUL \u0000 inside`);
      await page.fill('#contactEmail', '');
      await page.getByRole('button', { name: 'Send report' }).click();
      await page.waitForSelector('text=cannot be stored');
      await check('form-unstorable');
      await page.fill('#description', long);
      await page.getByRole('button', { name: 'Send report' }).click();
      await page.waitForSelector('#submission-id');
      await check('confirmation');
      await page.locator('#status-link').click();
      await page.waitForSelector('#report-status');
      await check('status');
      await context.close();
    }
    assert.equal(seen.length, 6 * LAYOUT_WIDTHS.length, seen.join(' '));
    assert.deepEqual(wide, [], 'portal pages wider than the viewport');
  });
});
