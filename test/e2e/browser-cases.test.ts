import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
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

  it('report -> case -> upstream notice confirmed and sent -> acknowledged by the other company -> shown on the case -> too many files refused -> a file sent and saved', async () => {
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

    // Seven files are two too many: the form comes back naming the limit, the message as typed.
    await a.page.fill('#body', 'Seven traces <attached>');
    await a.page.setInputFiles(
      '#attachments',
      Array.from({ length: 7 }, (_, i) => ({ name: `trace-${i}.txt`, mimeType: 'text/plain', buffer: Buffer.from(`trace ${i}`) })),
    );
    await Promise.all([a.page.waitForLoadState('load'), a.page.click('button:has-text("Send message")')]);
    assert.match(await a.page.locator('#attachments-error').innerText(), /at most 5 files per message/);
    assert.equal(await a.page.inputValue('#body'), 'Seven traces <attached>');
    assert.doesNotMatch(await a.page.locator('#thread').innerText(), /trace-0\.txt/, 'nothing was sent');

    // A sends the proof of concept with a message; B sees it with its SHA-256 and saves it as sent.
    const poc = '#!/usr/bin/env python3\nprint("offer length 0xffff")\n';
    await a.page.fill('#body', 'The proof of concept, as agreed.');
    await a.page.setInputFiles('#attachments', { name: 'poc.py', mimeType: 'text/html', buffer: Buffer.from(poc) });
    await Promise.all([a.page.waitForURL(/done=message/), a.page.click('button:has-text("Send message")')]);
    assert.match(await a.page.locator('#thread').innerText(), /poc\.py/);
    await b.page.reload();
    const file = b.page.locator('#thread .attachments li').first();
    assert.match(await file.innerText(), new RegExp(createHash('sha256').update(poc).digest('hex')));
    const [download] = await Promise.all([b.page.waitForEvent('download'), file.locator('a').click()]);
    assert.equal(download.suggestedFilename(), 'poc.py');
    assert.equal(await readFile(await download.path(), 'utf8'), poc, 'downloaded byte for byte, not opened');
    assert.deepEqual([...a.problems, ...b.problems], []);
  });
});
