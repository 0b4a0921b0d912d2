import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'playwright-core';
import { launchChromium, noChromium } from '../helpers/browser.js';
import { buildApp } from '../../src/app.js';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { createMemoryRateLimiter } from '../../src/kernel/rate-limit.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort } from '../helpers/processes.js';

let database: TestDatabase;
let app: FastifyInstance;
let browser: Browser;
let site: string;

before(async () => {
  if (noChromium) return;
  database = await createTestDatabase();
  const port = await freePort();
  site = `http://localhost:${port}`;
  app = await buildApp({ config: testConfig({ PUBLIC_URL: site }), database, rateLimiter: createMemoryRateLimiter() });
  await app.listen({ host: '127.0.0.1', port });
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await app?.close();
  await database?.drop();
});

describe('/docs/api in Chromium', { skip: noChromium }, () => {
  it('renders every operation from /openapi.json under its CSP, with no violation, script error or outside request', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const violations: string[] = [];
    const errors: string[] = [];
    const requests: string[] = [];
    await page.exposeFunction('reportViolation', (v: string) => violations.push(v));
    // Runs in the page (injected by the browser's debugging protocol, not subject to the page's CSP).
    await page.addInitScript({
      content: "document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective + ' ' + e.blockedURI));",
    });
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('request', (r) => requests.push(r.url()));
    page.on('response', (r) => {
      if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`);
    });

    const res = await page.goto(`${site}/docs/api`);
    assert.equal(res?.status(), 200);
    const csp = res?.headers()['content-security-policy'] ?? '';
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    // Rendering the whole document took over 20 s on a machine at load 30: a wait, not a measure.
    await page.waitForSelector('.opblock', { timeout: 90_000 });
    const summaries = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path') ?? e.textContent ?? ''));
    assert.equal(summaries.length, API_OPERATIONS.length + 1, summaries.join('\n'));
    assert.ok(summaries.some((p) => p.includes('/api/v1/vulnerabilities/export')));
    assert.ok(summaries.some((p) => p.includes('/api/portal/batch')));
    assert.match(await page.title(), /Cradle API reference/);
    assert.ok((await page.textContent('body'))?.includes('Cradle API'));
    await page.waitForTimeout(300);
    assert.deepEqual(violations, []);
    assert.deepEqual(errors, []);
    assert.deepEqual(
      requests.filter((u) => !u.startsWith(site) && !u.startsWith('data:')),
      [],
    );
    await context.close();
  });
});
