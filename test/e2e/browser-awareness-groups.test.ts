import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { operatorContext } from '../../src/kernel/context.js';
import { listAwareness } from '../../src/modules/known-vulns/awareness.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../src/modules/sboms/push-sbom.js';
import type { Tenant } from '../helpers/access.js';
import type { TestApp } from '../helpers/app.js';
import { browserAppSuite, noChromium, signInPage } from '../helpers/browser.js';
import { cycloneDxOf, importLog4Shell, LOG4J } from '../helpers/vulndb.js';

/**
 * Issue 37 part 7: KEV awareness decisions grouped by vulnerability and component; a PSIRT member
 * unticks one product of a group and confirms the others in one click, without script errors.
 */
describe('awareness groups in a real browser', { skip: noChromium }, () => {
  const suite = browserAppSuite();
  let browser: Browser;
  let site = '';
  let acme: Tenant;
  let t: TestApp;
  before(async () => {
    ({ browser, site, acme, t } = await suite.ready);
    await importLog4Shell(t.database.db);
    for (const id of ['gw-a', 'gw-b', 'gw-c']) {
      await upsertProduct(t.database.db, operatorContext(), acme.company.id, { name: `Gateway ${id}`, identifier: id });
      await pushSbom(t.database.db, operatorContext(), acme.company.id, id, cycloneDxOf([LOG4J]));
    }
  });

  it('confirms the ticked products of a group in one click and keeps the unticked one waiting', async () => {
    const { page, problems } = await signInPage(browser, site, acme.admin.email);
    await page.goto(`${site}/known-vulnerabilities`);
    const group = page.locator('#awareness-h + p + article');
    assert.match(await group.locator('h3').innerText(), /CVE-2021-44228 in pkg:maven\/org\.apache\.logging\.log4j\/log4j-core/);
    assert.match(await group.innerText(), /3 products, 3 SBOMs/);
    await group.getByRole('checkbox', { name: /gw-c/ }).uncheck();
    await group.getByLabel('Aware since (UTC, empty: now)').fill('2026-11-25T08:00:00');
    await Promise.all([page.waitForURL(/done=confirmed&n=2$/), group.getByRole('button', { name: /^Confirm for the ticked products/ }).click()]);
    assert.match(await page.locator('.notice.ok').innerText(), /2 awareness decisions confirmed/);
    assert.match(await page.locator('#awareness-h + p + article').innerText(), /1 product, 1 SBOM/);
    const waiting = await listAwareness(t.database.db, acme.company.id);
    assert.deepEqual(
      waiting.map((a) => a.productIdentifier),
      ['gw-c'],
    );
    const confirmed = await listAwareness(t.database.db, acme.company.id, { state: 'confirmed' });
    assert.deepEqual(confirmed.map((a) => a.productIdentifier).sort(), ['gw-a', 'gw-b']);
    assert.deepEqual(problems, []);
  });
});
