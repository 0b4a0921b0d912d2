// Every dashboard page in Chromium at a phone's width (390 px) and two desktop widths (1024 and
// 1280 px), as the administrator, who sees every page and the longest navigation: no page scrolls
// sideways at any of them (a wide table scrolls inside its own box, forms stack). Each page is also saved as a screenshot (SCREENSHOT_DIR, by
// default a folder in the system's temporary directory) so that a person can look at all of them.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DASHBOARD_ROUTES } from '../../src/web/dashboard/route-access.js';
import { signInCookie } from '../helpers/access.js';
import { browserAppSuite, LAYOUT_WIDTHS, noChromium, overflowingElements } from '../helpers/browser.js';
import { dashboardFixtures, dashboardPath } from '../helpers/dashboard-fixtures.js';

const SHOTS = process.env.SCREENSHOT_DIR ?? join(tmpdir(), 'cradle-dashboard-screenshots');

describe('dashboard pages at phone and desktop widths', { skip: noChromium }, () => {
  const { ready } = browserAppSuite();

  it('no page scrolls sideways at 390, 1024 and 1280 px, and each is captured at each width', async () => {
    const { t, browser, site, acme } = await ready;
    const ids = await dashboardFixtures(t.database.db, acme);
    const cookie = await signInCookie(t, acme.admin.email);
    const [name = '', value = ''] = cookie.split('=');
    mkdirSync(SHOTS, { recursive: true });
    const pages = DASHBOARD_ROUTES.filter((r) => r.startsWith('GET ')).map((r) => ({ route: r, path: dashboardPath(ids, r, true) }));
    const wide: string[] = [];
    let shown = 0;
    for (const width of LAYOUT_WIDTHS) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      await context.addCookies([{ name, value, url: site }]);
      const page = await context.newPage();
      for (const { route, path } of pages) {
        const res = await page.goto(`${site}${path}`).catch(() => null); // a download is no page
        if (!res || !String(res.headers()['content-type']).startsWith('text/html')) continue;
        assert.ok(res.status() < 500, `${route}: ${res.status()}`);
        shown += 1;
        await page.screenshot({ path: join(SHOTS, `${width}-${route.replace(/[^a-z0-9]+/gi, '_')}.png`), fullPage: true });
        const over = await overflowingElements(page);
        if (over.length) wide.push(`${route} at ${width} px: ${over.join(', ')}`);
      }
      await context.close();
    }
    assert.ok(shown >= 3 * 20, `expected every dashboard page at each width, saw ${shown}`);
    assert.deepEqual(wide, [], 'pages wider than the viewport');
  });
});
