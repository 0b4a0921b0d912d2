import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, noChromium } from '../helpers/browser.js';
import { operatorContext } from '../../src/kernel/context.js';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { runTriageCycle } from '../../src/modules/triage/triage-worker.js';
import { makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { TEST_PASSWORD } from '../helpers/factories.js';
import { cycloneDx, sarif } from '../helpers/evidence.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { freePort } from '../helpers/processes.js';

const skip = noChromium;

describe('vulnerability workflow in a real browser, without JavaScript', { skip }, () => {
  let t: TestApp;
  let browser: Browser;
  let site = '';
  let portal = '';
  let acme: Tenant;

  before(async () => {
    const port = await freePort();
    site = `http://localhost:${port}`;
    t = await createTestApp({ PUBLIC_URL: site });
    acme = await makeTenant(t.database.db);
    await updateCompany(t.database.db, operatorContext(), acme.company.slug, { aiTriage: true });
    portal = `http://${acme.company.slug}.localhost:${port}`;
    await t.app.listen({ host: '127.0.0.1', port });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const submit = (page: Page, form: string) => Promise.all([page.waitForLoadState('load'), page.click(`form[action$="${form}"] button[type=submit]`)]);
  const notice = (page: Page) => page.locator('main .notice').first().innerText();

  it('files a report, triages it from new to fixed with an Article 14 clock and an early warning, and follows up with the researcher', async () => {
    const researcher = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await researcher.goto(`${portal}/submit`);
    await researcher.fill(
      '#description',
      'Unauthenticated command injection in the firmware update endpoint /api/update: the version parameter is passed to sh. <b>bold?</b>',
    );
    await Promise.all([researcher.waitForLoadState('load'), researcher.click('button[type=submit]')]);
    const statusLink = await researcher.getAttribute('#status-link', 'href');
    assert.ok(statusLink?.startsWith(`${portal}/status/`));
    const id = await researcher.innerText('#submission-id');
    await runTriageCycle(t.database.db, {});

    const psirt = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await psirt.goto(`${site}/reports`);
    assert.match(psirt.url(), /\/login\?next=/);
    await psirt.fill('#email', acme.admin.email);
    await psirt.fill('#password', TEST_PASSWORD);
    await Promise.all([psirt.waitForURL(`${site}/reports`), psirt.click('button[type=submit]')]);
    await Promise.all([psirt.waitForLoadState('load'), psirt.click(`a[href="/reports/${id}"]`)]);
    assert.equal(
      await psirt.locator('section.untrusted pre').first().innerText(),
      'Unauthenticated command injection in the firmware update endpoint /api/update: the version parameter is passed to sh. <b>bold?</b>',
    );
    assert.match(await psirt.locator('section.suggestion').innerText(), /Type\s+injection/i);

    await psirt.selectOption('#status', 'triaging');
    await submit(psirt, '/status');
    assert.equal(await notice(psirt), 'Status changed.');
    assert.match(await psirt.innerText('#article14-reason'), /not yet assessed/);

    await psirt.selectOption('#activelyExploited', 'yes');
    const aware = new Date(Date.now() - 2 * 3_600_000).toISOString().slice(0, 16);
    await psirt.fill('#awareAt', aware);
    await psirt.check('input[name=memberStates][value=DE]');
    await submit(psirt, '/facts');
    assert.equal(await notice(psirt), 'Article 14 facts saved.');
    assert.match(await psirt.innerText('#article14-reason'), /^Applies\./);
    const early = psirt.locator('tr[data-stage=early_warning]');
    assert.match(await early.innerText(), /open|due soon/);
    assert.equal(await early.locator('time').getAttribute('datetime'), new Date(Date.parse(`${aware}:00Z`) + 24 * 3_600_000).toISOString());

    await early.locator('input[name=reference]').fill('SRP-2026-0099');
    await Promise.all([psirt.waitForLoadState('load'), early.locator('button[type=submit]').click()]);
    assert.equal(await notice(psirt), 'Filing recorded.');
    assert.match(await psirt.locator('tr[data-stage=early_warning]').innerText(), /filed.*SRP-2026-0099/s);

    // Each state by its value in the form and by its label on the page (src/web/labels.ts).
    for (const [next, shown] of [
      ['accepted', 'accepted'],
      ['fixing', 'fix in progress'],
      ['fixed', 'fixed'],
    ]) {
      await psirt.selectOption('#status', next!);
      await submit(psirt, '/status');
      assert.equal(await psirt.locator('h1 .state').innerText(), shown);
    }
    assert.deepEqual(await psirt.locator('#status option').allInnerTexts(), ['disclosed', 'fix in progress'], 'only the allowed transitions are offered');

    await psirt.fill('#reply-body', 'Fixed in firmware 2.6; may we credit you?');
    await submit(psirt, '/messages');
    assert.equal(await notice(psirt), 'Reply sent.');

    await researcher.goto(statusLink as string);
    assert.match(await researcher.innerText('#report-status'), /^fixed: fixed$/);
    assert.match(await researcher.innerText('#thread'), /Fixed in firmware 2\.6; may we credit you\?/);
    await researcher.fill('#body', 'Yes please, as <i>Jane</i>.');
    await Promise.all([researcher.waitForLoadState('load'), researcher.click('button[type=submit]')]);
    assert.match(await researcher.innerText('#thread'), /Yes please, as <i>Jane<\/i>\./);

    await psirt.reload();
    assert.match(
      await psirt.getByRole('region', { name: 'Messages with the reporter' }).locator('ol.thread').innerText(),
      /Reporter untrusted · .*\nYes please, as <i>Jane<\/i>\./s,
    );
    assert.match(await psirt.locator('ol.timeline').innerText(), /fix in progress → fixed/);

    // The advisory, drafted, edited and published from the dashboard; the researcher credited with consent.
    await Promise.all([psirt.waitForLoadState('load'), psirt.click('form[action="/advisories"] button[type=submit]')]);
    assert.match(await notice(psirt), /Draft created from your triage facts/);
    await psirt.fill('#title', 'Command injection in the firmware update endpoint');
    await psirt.fill('#product-0-vendor', acme.company.name);
    await psirt.fill('#product-0-name', 'Thermostat T2');
    await psirt.fill('#product-0-version', '2.5.0');
    await psirt.selectOption('#product-0-status', 'known_affected');
    await psirt.fill('#product-1-vendor', acme.company.name);
    await psirt.fill('#product-1-name', 'Thermostat T2');
    await psirt.fill('#product-1-version', '2.6.0');
    await psirt.selectOption('#product-1-status', 'fixed');
    await psirt.selectOption('#remediationCategory', 'vendor_fix');
    await psirt.fill('#remediationDetails', 'Update to firmware 2.6.');
    await psirt.fill('input[name="ack-0-name"]', 'Jane');
    await psirt.check('input[name="ack-0-consent"]');
    await Promise.all([psirt.waitForLoadState('load'), psirt.click('form.advisory-edit button[type=submit]')]);
    assert.equal(await notice(psirt), 'Advisory saved.');
    // Publish is offered on the preview, below the public page and the CSAF document as they will be released.
    await Promise.all([psirt.waitForLoadState('load'), psirt.click('a.button:has-text("Preview and publish")')]);
    assert.match(await psirt.locator('section.public-preview h1').innerText(), /^Command injection in the firmware update endpoint$/);
    assert.match(await psirt.locator('section.public-preview').innerText(), /Update to firmware 2\.6\./);
    assert.equal(JSON.parse(await psirt.locator('#csaf-preview').innerText()).document.tracking.version, '1');
    await submit(psirt, '/publish');
    assert.match(await notice(psirt), /^Published: version 1/);
    assert.equal(await psirt.locator('h1 .state').innerText(), 'published');

    await researcher.goto(`${portal}/advisories`);
    assert.match(await researcher.locator('main').innerText(), /Command injection in the firmware update endpoint/);
    await researcher.goto(`${portal}/acknowledgments`);
    assert.match(await researcher.locator('main').innerText(), /Jane/);
  });

  it('uploads an SBOM and a SARIF scan from the evidence page, as the browser encodes a file form', async () => {
    await upsertProduct(t.database.db, operatorContext(), acme.company.id, { name: 'Gateway G1', identifier: 'gateway-g1' });
    const psirt = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
    await psirt.goto(`${site}/login?next=%2Fevidence`);
    await psirt.fill('#email', acme.admin.email);
    await psirt.fill('#password', TEST_PASSWORD);
    await Promise.all([psirt.waitForURL(`${site}/evidence`), psirt.click('button[type=submit]')]);
    await psirt.selectOption('#sbom-product', 'gateway-g1');
    const bom = cycloneDx([{ name: 'busybox', version: '1.36.1' }], ['busybox']);
    await psirt.setInputFiles('#sbom-document', { name: 'gateway.cdx.json', mimeType: 'application/json', buffer: Buffer.from(bom) });
    await submit(psirt, '/evidence/sboms');
    assert.equal(await notice(psirt), 'SBOM uploaded for gateway-g1: version 1.');
    assert.match(await psirt.locator('main table').innerText(), /Gateway G1[\s\S]*version 1/);

    await psirt.selectOption('#sarif-product', 'gateway-g1');
    const log = sarif('semgrep', [{ rule: 'path-traversal', file: 'src/upload.c', line: 7, level: 'error' }]);
    await psirt.setInputFiles('#sarif-document', { name: 'scan.sarif', mimeType: 'application/json', buffer: Buffer.from(log) });
    await submit(psirt, '/evidence/findings');
    assert.equal(await notice(psirt), 'Scan uploaded for gateway-g1: 1 new, 0 fixed, 0 reopened, 0 unchanged findings.');
  });
});
