import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { operatorContext } from '../../src/kernel/context.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { makeTenant, type Tenant } from '../helpers/access.js';
import type { TestApp } from '../helpers/app.js';
import { browserAppSuite, noChromium, signInPage } from '../helpers/browser.js';
import { makeMember } from '../helpers/team.js';

/**
 * Issue 34 end to end in Chromium: a PSIRT member of one company goes from a report to an upstream
 * notice prepared, confirmed and sent to another company on the same instance, which acknowledges
 * it from its own dashboard; the first company sees the acknowledgement on its case.
 */
describe('a coordination case in a real browser', { skip: noChromium }, () => {
  const suite = browserAppSuite();
  let browser: Browser;
  let site = '';
  let t: TestApp;
  let acme: Tenant;
  let upstream: Tenant;
  let psirt = '';
  before(async () => {
    ({ browser, site, acme, t } = await suite.ready);
    upstream = await makeTenant(t.database.db);
    psirt = (await makeMember(t.database.db, acme.company.id, acme.admin.id, 'psirt')).email;
  });

  const signedIn = (email: string) => signInPage(browser, site, email);

  it('report -> case -> upstream notice confirmed and sent -> acknowledged by the other company -> shown on the case', async () => {
    const { report } = await fileReport(
      t.database.db,
      operatorContext(),
      acme.company,
      { description: 'The DHCP offer length is trusted in dhcp_parse_reply', vulnerabilityType: 'memory_corruption' },
      'api',
    );
    const a = await signedIn(psirt);
    await a.page.goto(`${site}/reports/${report.submissionId}`);
    await a.page.fill('#case-title', 'Overflow in lwIP DHCP');
    await Promise.all([a.page.waitForURL(/\/cases\/[0-9a-f-]{36}/), a.page.click('#open-case')]);
    const caseUrl = a.page.url().split('?')[0] ?? '';

    await a.page.selectOption('#role', 'upstream_maintainer');
    await a.page.fill('#address', upstream.company.slug);
    await Promise.all([a.page.waitForURL(/done=participant/), a.page.click('#add-participant')]);
    await Promise.all([a.page.waitForLoadState('load'), a.page.click('#prepare-notices')]);
    // The notice is shown exactly as it will go out before anything is sent.
    assert.match(await a.page.locator('#prepared').innerText(), /dhcp_parse_reply/);
    await Promise.all([a.page.waitForURL(/done=sent/), a.page.click('#confirm-notices')]);
    const row = a.page.locator('tr[data-participant]');
    assert.equal(await row.locator('.status').innerText(), 'contact attempted');
    assert.match(
      await a.page.locator('#notices-sent').innerText(),
      /: Cradle, \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/,
      'sent into its inbox, dated to the second',
    );

    // The other company finds the case in its dashboard and acknowledges it.
    const b = await signedIn(upstream.admin.email);
    await b.page.goto(`${site}/cases`);
    await Promise.all([b.page.waitForURL(/\/cases\/inbound\//), b.page.click('#inbound-cases a:has-text("Overflow in lwIP DHCP")')]);
    await Promise.all([b.page.waitForLoadState('load'), b.page.click('#acknowledge')]);
    assert.equal(await b.page.locator('#acknowledge').count(), 0, 'acknowledged once');

    await a.page.goto(caseUrl);
    assert.equal(await row.locator('.status').innerText(), 'open');
    assert.notEqual((await row.locator('.acknowledged').innerText()).trim(), '');
    assert.match(await a.page.locator('#timeline').innerText(), /acknowledged/);
    assert.deepEqual([...a.problems, ...b.problems], []);
  });
});
