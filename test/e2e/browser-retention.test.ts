import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { erasureRequests, legalHolds, reports, retentionPolicies } from '../../src/db/schema/index.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import type { Tenant } from '../helpers/access.js';
import { browserAppSuite, noChromium, signInPage } from '../helpers/browser.js';
import { makeMember } from '../helpers/team.js';
import type { TestApp } from '../helpers/app.js';

/** Issue 35: the retention page's forms in Chromium for an administrator; other roles are refused. */
describe('retention page in a real browser', { skip: noChromium }, () => {
  const suite = browserAppSuite();
  let browser: Browser;
  let site = '';
  let acme: Tenant;
  let t: TestApp;
  before(async () => {
    ({ browser, site, acme, t } = await suite.ready);
  });

  const signIn = (email: string) => signInPage(browser, site, email);
  const submit = (page: Page, button: string) => Promise.all([page.waitForLoadState('load'), page.click(`button:has-text("${button}")`)]);

  it('saves the policy, keeps typed values on an error, places and releases a hold, records an erasure and runs', async () => {
    const db = t.database.db;
    const filed = await fileReport(
      db,
      { actor: { type: 'public' } },
      acme.company,
      { description: 'browser erasure', contactEmail: 'bea@researcher.example' },
      'api',
    );
    const { page, problems } = await signIn(acme.admin.email);
    await Promise.all([page.waitForURL(/\/settings\/retention$/), page.click('header a[href="/settings/retention"]')]);
    assert.equal(await page.locator('h1').innerText(), 'Retention, erasure and legal holds');
    assert.equal(await page.inputValue('#reporterDataDays'), '730');

    await page.fill('#reporterDataDays', '365');
    await page.fill('#rejectedBodyDays', '5');
    await submit(page, 'Save policy');
    assert.match(await page.locator('.notice.bad').innerText(), /at least 30 days/);
    assert.equal(await page.inputValue('#reporterDataDays'), '365', 'typed values kept');
    assert.equal(await page.inputValue('#rejectedBodyDays'), '5');
    assert.equal(await page.getAttribute('#rejectedBodyDays', 'aria-invalid'), 'true');
    await page.fill('#rejectedBodyDays', '');
    await submit(page, 'Save policy');
    assert.match(await page.locator('.notice.ok').innerText(), /saved/);
    const [policy] = await db.select().from(retentionPolicies).where(eq(retentionPolicies.companyId, acme.company.id));
    assert.deepEqual([policy?.reporterDataDays, policy?.rejectedBodyDays, policy?.accessRecordDays], [365, null, 90]);

    await page.selectOption('#scope', 'report');
    await page.fill('#target', filed.report.submissionId);
    await page.fill('#reason', 'Matter 12: preserve');
    await submit(page, 'Place hold');
    assert.match(await page.locator('#legal-holds').innerText(), /Matter 12: preserve/);

    await page.fill('#reportId', filed.report.submissionId);
    await submit(page, 'Record erasure request');
    assert.match(await page.locator('#erasure-requests').innerText(), /waiting for a legal hold/);
    const [held] = await db.select().from(reports).where(eq(reports.id, filed.report.submissionId));
    assert.equal(held?.contactEmail, 'bea@researcher.example', 'held data is not erased');

    await submit(page, 'Release');
    assert.match(await page.locator('#erasure-requests').innerText(), /applied/);
    const [erased] = await db.select().from(reports).where(eq(reports.id, filed.report.submissionId));
    assert.equal(erased?.contactEmail, null);
    const [request] = await db
      .select()
      .from(erasureRequests)
      .where(and(eq(erasureRequests.companyId, acme.company.id), eq(erasureRequests.reportId, filed.report.submissionId)));
    assert.equal(request?.state, 'applied');
    assert.equal((await db.select().from(legalHolds).where(eq(legalHolds.companyId, acme.company.id)))[0]?.releasedBy, `user:${acme.admin.id}`);

    await submit(page, 'Run now');
    assert.match(await page.locator('.notice.ok').innerText(), /applied/);
    assert.equal(await page.locator('#retention-preview tr[data-rule="reporter_data"] td').nth(1).innerText(), '365 days');
    assert.match(await page.locator('#cra-floor').innerText(), /Product/);
    assert.deepEqual(problems, [], 'no CSP or script errors');
  });

  it('refuses PSIRT members and viewers, page and forms alike', async () => {
    const db = t.database.db;
    for (const role of ['psirt', 'viewer'] as const) {
      const m = await makeMember(db, acme.company.id, acme.admin.id, role);
      const { page } = await signIn(m.email);
      assert.equal(await page.locator('header a[href="/settings/retention"]').count(), 0, 'no link to it');
      const res = await page.goto(`${site}/settings/retention`);
      assert.equal(res?.status(), 403);
      // A forged form with the member's own CSRF token: the server refuses it all the same.
      await page.goto(`${site}/dashboard`);
      const [posted] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/settings/retention/run')),
        page.evaluate(`(() => {
          const f = document.createElement('form');
          f.method = 'post';
          f.action = '/settings/retention/run';
          f.append(document.querySelector('input[name="_csrf"]').cloneNode());
          document.body.append(f);
          f.submit();
        })()`),
      ]);
      assert.equal(posted.status(), 403);
    }
  });
});
