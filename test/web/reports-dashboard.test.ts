import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../src/kernel/context.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { getReport } from '../../src/modules/reports/get-report.js';
import { runTriageCycle } from '../../src/modules/triage/triage-worker.js';
import { updateReport } from '../../src/modules/reports/update-report.js';
import { bearer, makeKey, makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';

let t: TestApp;
let acme: Tenant;
let page: ReturnType<typeof dashboardClient>['page'];
let form: ReturnType<typeof dashboardClient>['form'];
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  ({ page, form } = dashboardClient(t, await signInCookie(t, acme.admin.email)));
});
after(() => t.close());

const HOSTILE = "<script>alert(1)</script> SQL injection in /api/search via q=' union select";
const file = async (description: string, productName?: string) =>
  (await fileReport(t.database.db, operatorContext(), acme.company, { description, ...(productName ? { productName } : {}) }, 'portal_form')).report
    .submissionId;

describe('reports inbox', () => {
  it("lists the company's reports escaped, by state tab and product, never another company's", async () => {
    const id = await file(HOSTILE, 'Hub H1');
    const other = await file('Telnet open on the T2', 'Thermostat T2');
    const rival = await makeTenant(t.database.db);
    const theirs = (await fileReport(t.database.db, operatorContext(), rival.company, { description: 'rival report' }, 'api')).report.submissionId;
    await updateReport(t.database.db, operatorContext(), acme.company.id, other, { status: 'triaging' });
    const res = await page('/reports');
    assert.equal(res.statusCode, 200);
    assert.ok(res.body.includes(`href="/reports/${id}"`));
    assert.ok(!res.body.includes('<script>alert(1)'), 'report text is escaped');
    assert.ok(res.body.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(!res.body.includes(theirs));
    const triaging = await page('/reports?tab=triaging');
    assert.ok(triaging.body.includes(other) && !triaging.body.includes(`/reports/${id}"`));
    const byProduct = await page('/reports?tab=all&product=Hub+H1');
    assert.ok(byProduct.body.includes(id) && !byProduct.body.includes(other));
    assert.equal((await page('/reports?tab=bogus&page=-3')).statusCode, 200, 'bad filters fall back to defaults');
  });

  it('shows a running Article 14 clock as a badge, overdue highlighted, and counts it on the home page', async () => {
    const id = await file('Exploited in the wild: command injection in the update service');
    await updateReport(t.database.db, operatorContext(), acme.company.id, id, {
      activelyExploited: true,
      awareAt: new Date(Date.now() - 30 * 3_600_000).toISOString(),
    });
    const res = await page('/reports?tab=deadlines');
    assert.match(res.body, new RegExp(`<tr class="overdue">(<td><input type="checkbox" name="ids" value="${id}"[^>]*></td>)?<td><a href="/reports/${id}">`));
    assert.match(res.body, /class="badge overdue"[^>]*>Art\. 14 early warning: <time[^>]*>6 h \d+ min overdue/);
    const home = await page('/dashboard');
    assert.match(home.body, /<strong id="count-overdue">1<\/strong>/);
    assert.match(home.body, /<span class="count overdue" title="overdue Article 14 stages">1<\/span>/);
  });
});

describe('triage suggestion over REST', () => {
  it('GET /api/v1/vulnerabilities/{id} carries the suggestion once triage ran, null before', async () => {
    const company = await updateCompany(t.database.db, operatorContext(), acme.company.slug, { aiTriage: true });
    const id = (
      await fileReport(
        t.database.db,
        operatorContext(),
        company,
        { description: 'Stored cross-site scripting: <script> in the device name runs in the dashboard' },
        'api',
      )
    ).report.submissionId;
    const key = await makeKey(t.database.db, acme, { scopes: ['read'] });
    const get = async () =>
      (await t.app.inject({ url: `/api/v1/vulnerabilities/${id}`, headers: bearer(key.key) })).json() as {
        submissionId: string;
        triageSuggestion: { source: string; vulnerabilityType: { value: string }; decision: string } | null;
      };
    assert.equal((await get()).triageSuggestion, null);
    await runTriageCycle(t.database.db, {});
    const body = await get();
    assert.equal(body.submissionId, id);
    assert.deepEqual(
      [body.triageSuggestion?.source, body.triageSuggestion?.vulnerabilityType.value, body.triageSuggestion?.decision],
      ['built-in', 'cross_site_scripting', 'pending'],
    );
    const view = await page(`/reports/${id}`);
    assert.match(view.body, /Triage suggestion <span class="tag">built-in<\/span> <span class="tag">pending<\/span>/);
    assert.equal((await form(`/reports/${id}/suggestion`, { decision: 'accepted' })).statusCode, 303);
    assert.equal((await get()).triageSuggestion?.decision, 'accepted');
  });
});

describe('report page', () => {
  it('shows the report as untrusted text and offers only the allowed transitions', async () => {
    const id = await file(HOSTILE);
    const res = await page(`/reports/${id}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /Written by the reporter <span class="tag">untrusted<\/span>/);
    assert.ok(!res.body.includes('<script>alert(1)'));
    const options = [...res.body.matchAll(/<select id="status" name="status">(.*?)<\/select>/gs)].map((m) =>
      [...(m[1] ?? '').matchAll(/value="(\w+)"/g)].map((x) => x[1]),
    )[0];
    assert.deepEqual(options, ['triaging', 'accepted', 'duplicate', 'not_applicable', 'spam', 'informative']);
  });

  it('changes status, severity and Article 14 facts through forms, with history, and refuses illegal moves', async () => {
    const id = await file('Authentication bypass in the T2 web UI');
    const moved = await form(`/reports/${id}/status`, { status: 'triaging' });
    assert.equal(moved.statusCode, 303);
    assert.equal(moved.headers.location, `/reports/${id}?done=status`);
    const illegal = await form(`/reports/${id}/status`, { status: 'disclosed' });
    assert.equal(illegal.statusCode, 409);
    assert.match(illegal.body, /Not saved: cannot move a report from triaging to disclosed/);
    assert.equal((await form(`/reports/${id}/severity`, { cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', cwe: 'CWE-287' })).statusCode, 303);
    const bad = await form(`/reports/${id}/severity`, { cvssVector: 'CVSS:3.1/AV:N', cwe: '' });
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /missing base metrics/);
    const facts = await form(`/reports/${id}/facts`, {
      activelyExploited: 'yes',
      awareAt: '2026-11-20T08:00',
      severeIncident: '',
      fixAvailableAt: '',
      exploitationEvidence: 'seen in honeypot logs',
      memberStates: ['DE', 'FR'],
    });
    assert.equal(facts.statusCode, 303);
    const r = await getReport(t.database.db, acme.company.id, id);
    assert.deepEqual(
      [r.status, r.severity, r.activelyExploited, r.awareAt, r.severeIncident, r.memberStates],
      ['triaging', 'critical', true, '2026-11-20T08:00:00.000Z', null, ['DE', 'FR']],
    );
    const view = await page(`/reports/${id}`);
    assert.match(view.body, /<strong>Applies\.<\/strong> actively exploited vulnerability/);
    assert.match(view.body, /<tr class="stage-overdue" data-stage="early_warning">/);
    assert.match(view.body, /admin-[0-9a-f]+@example\.test: new → in triage/);
  });

  it('records a filing and serves the filing pack as a download', async () => {
    const id = await file('Exploited: hard-coded credentials in the hub');
    await updateReport(t.database.db, operatorContext(), acme.company.id, id, {
      activelyExploited: true,
      awareAt: new Date(Date.now() - 3_600_000).toISOString(),
      memberStates: ['AT'],
    });
    assert.equal((await form(`/reports/${id}/article14/early_warning`, { filedAt: '', reference: 'SRP-2026-77' })).statusCode, 303);
    const view = await page(`/reports/${id}`);
    assert.match(view.body, /<tr class="stage-filed" data-stage="early_warning">.*SRP reference <code>SRP-2026-77<\/code>/s);
    const pack = await page(`/reports/${id}/article14/pack`);
    assert.equal(pack.statusCode, 200);
    assert.match(String(pack.headers['content-disposition']), /^attachment; filename="article14-/);
    assert.match(pack.body, /== Early warning ==\nDue: .*\nState: filed\nFiled: .*SRP reference SRP-2026-77/);
    assert.match(pack.body, /Member States where the product is available:\n {2}AT/);
  });

  it("answers 404 for another company's report and 403 for a form without its CSRF token", async () => {
    const rival = await makeTenant(t.database.db);
    const theirs = (await fileReport(t.database.db, operatorContext(), rival.company, { description: 'rival' }, 'api')).report.submissionId;
    assert.equal((await page(`/reports/${theirs}`)).statusCode, 404);
    assert.equal((await form(`/reports/${theirs}/status`, { status: 'triaging' })).statusCode, 404);
    assert.equal((await getReport(t.database.db, rival.company.id, theirs)).status, 'new');
    const id = await file('csrf test');
    assert.equal((await form(`/reports/${id}/status`, { status: 'triaging' }, false)).statusCode, 403);
  });
});
