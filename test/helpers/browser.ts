import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { makeTenant, type Tenant } from './access.js';
import { TEST_PASSWORD } from './factories.js';
import { createTestApp, type TestApp } from './app.js';
import { freePort } from './processes.js';
import { suiteSetUp } from './suite.js';

export const CHROMIUM = '/usr/bin/chromium';
/**
 * A `skip` reason for browser tests on a developer machine without Debian's Chromium. `.ci/run`
 * installs Chromium and sets CRADLE_REQUIRE_CHROMIUM=1, so there a missing browser fails the run
 * instead of skipping a third of the UI coverage unnoticed.
 */
export const noChromium: string | false =
  existsSync(CHROMIUM) || process.env.CRADLE_REQUIRE_CHROMIUM === '1' ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium)`;

/**
 * Debian's Chromium, headless, with nothing reaching out to the network on its own (this machine's
 * network is closed), and `localhost` and every `*.localhost` portal resolved to the loopback address.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP *.localhost 127.0.0.1, MAP localhost 127.0.0.1',
    ],
  });
}

/**
 * A browser suite's set-up: the app listening on a free port (its PUBLIC_URL that address), one
 * company with an administrator, and Chromium; closed after the suite. Call inside `describe`;
 * `ready` resolves to them once made.
 */
export function browserAppSuite(): { ready: Promise<{ t: TestApp; browser: Browser; site: string; acme: Tenant }> } {
  const ready = suiteSetUp(async (onClose) => {
    const port = await freePort();
    const site = `http://localhost:${port}`;
    const t = await createTestApp({ PUBLIC_URL: site });
    onClose(() => t.close());
    await t.app.listen({ host: '127.0.0.1', port });
    const acme = await makeTenant(t.database.db);
    const browser = await launchChromium();
    onClose(() => browser.close());
    return { t, site, acme, browser };
  });
  return { ready };
}

/**
 * A new browser context signed in to the dashboard at `site` as `email` (the test password), with
 * the page's console errors collected (a missing resource aside) for the test to assert none.
 */
export async function signInPage(browser: Browser, site: string, email: string): Promise<{ page: Page; problems: string[] }> {
  const page = await (await browser.newContext()).newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(m.text());
  });
  await page.goto(`${site}/login`);
  await page.fill('#email', email);
  await page.fill('#password', TEST_PASSWORD);
  await Promise.all([page.waitForLoadState('load'), page.click('button[type=submit]')]);
  return { page, problems };
}

/** The widths every page is checked at: a phone's and two desktop widths. */
export const LAYOUT_WIDTHS = [390, 1024, 1280] as const;

/**
 * Up to three elements that reach past the viewport's right edge, each named by tag, class and
 * right edge so that a failure names the cause; none when the page does not scroll sideways.
 */
export function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const limit = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= limit) return [];
    return [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > limit + 1)
      .slice(0, 3)
      .map((e) => e.tagName.toLowerCase() + '.' + e.className + ' (' + Math.round(e.getBoundingClientRect().right) + ' px)');
  })()`);
}
