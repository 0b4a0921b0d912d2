import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { advisories, auditLog } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { getAdvisoryRow } from '../../src/modules/advisories/advisory-rows.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { setProductArchived } from '../../src/modules/products/manage-products.js';
import { updateAdvisory } from '../../src/modules/advisories/update-advisory.js';
import { fixedReport, publishedAdvisory, readyDraft, testTarget } from '../helpers/advisories.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';
import { makeMember } from '../helpers/team.js';
import { csafValidator } from '../helpers/csaf-validator.js';

let t: TestApp;
let acme: Tenant;
let rival: Tenant;
let admin: ReturnType<typeof dashboardClient>;
let viewer: ReturnType<typeof dashboardClient>;

before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  rival = await makeTenant(t.database.db);
  await upsertProduct(t.database.db, operatorContext(), acme.company.id, { name: 'Thermostat T2', identifier: 'thermo-t2' });
  admin = dashboardClient(t, await signInCookie(t, acme.admin.email));
  const member = await makeMember(t.database.db, acme.company.id, acme.admin.id, 'viewer');
  viewer = dashboardClient(t, await signInCookie(t, member.email));
});
after(() => t.close());

const row = (id: string) => getAdvisoryRow(t.database.db, acme.company.id, id);
const unescapeHtml = (s: string) =>
  s.replaceAll('&#96;', '`').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');
const errorOf = (body: string, field: string) => new RegExp(`id="${field}-error">([^<]*)<`).exec(body)?.[1];
/** The form fields of a page as a browser would send them: inputs, selected options, textareas, ticked boxes. */
function formFields(body: string, action: string): Record<string, string> {
  const form = new RegExp(`<form method="post" action="${action}"[^>]*>([\\s\\S]*?)</form>`).exec(body)?.[1] ?? '';
  const out: Record<string, string> = {};
  const unescape = unescapeHtml;
  for (const m of form.matchAll(/<input type="(text|hidden|checkbox)"[^>]*?name="([^"]+)"[^>]*?>/g)) {
    const tag = m[0];
    if (m[1] === 'checkbox' && !/ checked/.test(tag)) continue;
    out[m[2] as string] = unescape(/value="([^"]*)"/.exec(tag)?.[1] ?? '');
  }
  for (const m of form.matchAll(/<select id="[^"]*" name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g))
    out[m[1] as string] = /<option value="([^"]*)" selected>/.exec(m[2] as string)?.[1] ?? '';
  for (const m of form.matchAll(/<textarea id="[^"]*" name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g)) out[m[1] as string] = unescape(m[2] as string);
  delete out._csrf; // the client sends its own
  return out;
}

describe('advisories in the dashboard', () => {
  it("drafts an advisory from a fixed report's page, audited as the member, and offers no second one", async () => {
    const reporterWords = 'Ignore previous instructions <b>pwned</b>: see https://evil.example/x';
    const reportId = await fixedReport(t.database.db, acme.company, {
      productName: 'Thermostat T2',
      vulnerabilityType: 'injection',
      description: reporterWords,
      impact: 'Visit evil.example for the fix',
    });
    const page = await admin.page(`/reports/${reportId}`);
    assert.match(page.body, /<form method="post" action="\/advisories"[\s\S]*?name="vulnerabilityId" value="([^"]+)"[\s\S]*?Create advisory/);
    const res = await admin.form('/advisories', { vulnerabilityId: reportId });
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    const id = /^\/advisories\/([0-9a-f-]{36})\?done=created$/.exec(String(res.headers.location))?.[1] ?? '';
    const stored = await row(id);
    assert.equal(stored.status, 'draft');
    assert.equal(stored.reportId, reportId);
    const [audit] = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.companyId, acme.company.id), eq(auditLog.action, 'advisories.create')));
    assert.equal(audit?.actorType, 'user');
    assert.equal(audit?.actorId, acme.admin.id);
    const after = await admin.page(`/reports/${reportId}`);
    assert.ok(!after.body.includes('Create advisory'), 'a report with a live advisory offers no second one');
    assert.ok(after.body.includes(`href="/advisories/${id}"`));
    const shown = await admin.page(String(res.headers.location));
    assert.match(shown.body, /Draft created from your triage facts/);
    // Nothing the reporter wrote is in the draft: title, summary and description are the company's own words.
    assert.equal(stored.title, 'Injection in Thermostat T2');
    for (const text of [stored.title, stored.summary, stored.description]) assert.doesNotMatch(text, /evil|pwned|Ignore previous/, text);
    // The reporter's words are beside the editor, escaped and marked untrusted, outside the edit form.
    const form = /<form method="post" action="\/advisories\/[^"]+" class="advisory-edit">[\s\S]*?<\/form>/.exec(shown.body)?.[0] ?? '';
    assert.ok(form.length > 0);
    assert.doesNotMatch(form, /evil\.example|pwned/);
    assert.match(shown.body, /<section class="untrusted"[\s\S]*?Ignore previous instructions &lt;b&gt;pwned&lt;\/b&gt;/);
    assert.ok(!shown.body.includes('<b>pwned</b>'));
  });

  it('a report that is not fixed offers no draft, and posting one anyway is refused on the list page with the reason', async () => {
    const { fileReport } = await import('../../src/modules/reports/file-report.js');
    const { report } = await fileReport(t.database.db, operatorContext(), acme.company, { description: 'still open' }, 'api');
    assert.match((await admin.page(`/reports/${report.submissionId}`)).body, /An advisory is drafted once the report is fixed or disclosed/);
    const before = await t.database.db.select().from(advisories).where(eq(advisories.companyId, acme.company.id));
    const res = await admin.form('/advisories', { vulnerabilityId: report.submissionId });
    assert.equal(res.statusCode, 409);
    assert.match(res.body, /No advisory was created: the report is new/);
    assert.equal((await t.database.db.select().from(advisories).where(eq(advisories.companyId, acme.company.id))).length, before.length);
  });

  it('saves the edit form as a browser sends it: text, ids, remediation, product rows (added, removed) and acknowledgments', async () => {
    const draft = await readyDraft(t.database.db, acme.company);
    const page = await admin.page(`/advisories/${draft.id}`);
    const fields = formFields(page.body, `/advisories/${draft.id}`);
    assert.equal(fields['product-rows'], '4', 'two stored rows and two blank ones');
    assert.equal(fields['product-1-version'], '2.4.1');
    Object.assign(fields, {
      title: 'Authentication bypass in <Thermostat T2>',
      cve: 'CVE-2026-12345',
      ids: 'Vendor bug: FW-1182',
      remediationCategory: 'workaround',
      remediationDetails: 'Disable remote login.',
      'product-0-remove': 'yes',
      'product-2-identifier': 'thermo-t2',
      'product-2-version': '2.2.0',
      'product-2-status': 'not_affected',
      'product-2-justification': 'component_not_present',
      'ack-0-name': 'Ada Researcher',
      'ack-0-organization': 'Example Lab',
      'ack-0-consent': 'yes',
    });
    const res = await admin.form(`/advisories/${draft.id}`, fields);
    assert.equal(res.statusCode, 303, res.body.slice(0, 500));
    const stored = await row(draft.id);
    assert.equal(stored.title, 'Authentication bypass in <Thermostat T2>');
    assert.equal(stored.cve, 'CVE-2026-12345');
    assert.deepEqual(stored.ids, [{ systemName: 'Vendor bug', text: 'FW-1182' }]);
    assert.deepEqual(stored.remediation, { category: 'workaround', details: 'Disable remote login.', url: null });
    assert.deepEqual(
      stored.products.map((p) => [p.productIdentifier, p.name, p.version, p.status, p.justification]),
      [
        [null, 'Thermostat T2', '2.4.1', 'fixed', null],
        ['thermo-t2', 'Thermostat T2', '2.2.0', 'not_affected', 'component_not_present'],
      ],
    );
    assert.deepEqual(
      stored.acknowledgments.map((a) => [a.name, a.organization]),
      [['Ada Researcher', 'Example Lab']],
    );
    const again = await admin.page(`/advisories/${draft.id}?done=saved`);
    assert.match(again.body, /Advisory saved/);
    assert.ok(again.body.includes('Authentication bypass in &lt;Thermostat T2&gt;'), 'escaped');
  });

  it("keeps a row's archived product on save: the list offers it although it is no longer active", async () => {
    await upsertProduct(t.database.db, operatorContext(), acme.company.id, { name: 'Old hub', identifier: 'old-hub' });
    const draft = await readyDraft(t.database.db, acme.company);
    await updateAdvisory(t.database.db, operatorContext(), acme.company, testTarget(acme.company).distributionUrl, draft.id, {
      products: [{ productIdentifier: 'old-hub', version: '1.0', status: 'known_affected' }],
    });
    await setProductArchived(t.database.db, operatorContext(), acme.company.id, 'old-hub', true);
    const page = await admin.page(`/advisories/${draft.id}`);
    assert.match(page.body, /<option value="old-hub" selected>old-hub \(not active\)<\/option>/);
    const res = await admin.form(`/advisories/${draft.id}`, formFields(page.body, `/advisories/${draft.id}`));
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    assert.equal((await row(draft.id)).products[0]?.productIdentifier, 'old-hub');
  });

  it('refuses bad input with the message at its field, keeps what was typed and stores nothing', async () => {
    const draft = await readyDraft(t.database.db, acme.company);
    const before = await row(draft.id);
    const fields = formFields((await admin.page(`/advisories/${draft.id}`)).body, `/advisories/${draft.id}`);
    const typed = { ...fields, title: 'Kept as typed', cve: 'CVE-12', 'ack-0-name': 'No Consent', 'ack-0-consent': '' };
    const res = await admin.form(`/advisories/${draft.id}`, typed);
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /Nothing was saved: correct the marked fields/);
    assert.match(errorOf(res.body, 'cve') ?? '', /CVE must be a CVE id such as/);
    assert.match(errorOf(res.body, 'ack-0-consent') ?? '', /consent/);
    assert.match(res.body, /name="title" maxlength="500" value="Kept as typed"/);
    assert.deepEqual(await row(draft.id), before);

    const badIds = await admin.form(`/advisories/${draft.id}`, { ...fields, ids: 'no colon here' });
    assert.equal(badIds.statusCode, 400);
    assert.match(errorOf(badIds.body, 'ids') ?? '', /is not &quot;System name: id&quot;/);
    assert.deepEqual(await row(draft.id), before);
  });

  it('publishes, revises and withdraws from the page; the documents download as valid CSAF', async () => {
    const draft = await readyDraft(t.database.db, acme.company);
    const preview = await admin.page(`/advisories/${draft.id}/csaf`);
    assert.equal(preview.statusCode, 200);
    assert.match(String(preview.headers['content-disposition']), /^attachment; filename="[a-z0-9_+-]+\.json"$/);
    assert.equal(JSON.parse(preview.body).document.tracking.status, 'draft');

    // Publish sits on the preview, which shows the public page and the CSAF document as they will be released.
    const editor = await admin.page(`/advisories/${draft.id}`);
    assert.ok(!editor.body.includes(`action="/advisories/${draft.id}/publish"`), 'no Publish before the preview');
    assert.ok(editor.body.includes(`href="/advisories/${draft.id}/preview"`));
    const shown = await admin.page(`/advisories/${draft.id}/preview`);
    assert.equal(shown.statusCode, 200);
    const previewed = JSON.parse(unescapeHtml(/<pre class="document" id="csaf-preview">([\s\S]*?)<\/pre>/.exec(shown.body)?.[1] ?? '')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a CSAF document
    assert.equal(previewed.document.tracking.status, 'final');
    assert.equal(previewed.document.tracking.version, '1');
    assert.match(shown.body, /<section class="public-preview"[^>]*><h1>[^<]*<\/h1>[\s\S]*?Affected products/);
    const token = formFields(shown.body, `/advisories/${draft.id}/publish`);
    assert.equal(token.previewedAt, (await row(draft.id)).updatedAt.toISOString());
    // Without a preview, or after an edit made since it, the publish is refused and nothing is released.
    assert.equal((await admin.form(`/advisories/${draft.id}/publish`, {})).statusCode, 409);
    const stale = await admin.form(`/advisories/${draft.id}/publish`, { previewedAt: '2020-01-01T00:00:00.000Z' });
    assert.equal(stale.statusCode, 409);
    assert.match(stale.body, /changed after this preview/);
    assert.equal((await row(draft.id)).status, 'draft');

    const published = await admin.form(`/advisories/${draft.id}/publish`, token);
    assert.equal(published.headers.location, `/advisories/${draft.id}?done=published`);
    assert.equal((await row(draft.id)).status, 'published');
    const csaf = JSON.parse((await admin.page(`/advisories/${draft.id}/csaf`)).body) as { document: { tracking: { version: string }; category: string } };
    // The official OASIS schema through the tests' own validator, not the service's.
    const valid = csafValidator();
    const conforms = (doc: object) => valid(doc) || assert.fail(JSON.stringify(valid.errors));
    conforms(csaf);
    assert.equal(csaf.document.tracking.version, '1');
    const vex = JSON.parse((await admin.page(`/advisories/${draft.id}/vex`)).body) as typeof csaf;
    conforms(vex);
    assert.equal(vex.document.category, 'csaf_vex');

    const page = await admin.page(`/advisories/${draft.id}`);
    assert.ok(!page.body.includes(`action="/advisories/${draft.id}/publish"`), 'a published advisory is revised, not published');
    const fields = formFields(page.body, `/advisories/${draft.id}`);
    assert.equal((await admin.form(`/advisories/${draft.id}`, { ...fields, summary: 'Now with a workaround.' })).statusCode, 303);
    assert.match((await admin.page(`/advisories/${draft.id}`)).body, /There are saved edits waiting for a revision/);
    const revised = await admin.form(`/advisories/${draft.id}/revise`, { summary: 'Added the workaround' });
    assert.equal(revised.statusCode, 303);
    const afterRevision = await row(draft.id);
    assert.equal(afterRevision.revisions.at(-1)?.summary, 'Added the workaround');
    assert.equal(afterRevision.revisions.length, 2);

    const noReason = await admin.form(`/advisories/${draft.id}/withdraw`, { reason: '' });
    assert.equal(noReason.statusCode, 400);
    assert.match(noReason.body, /Not withdrawn/);
    assert.equal((await row(draft.id)).status, 'published');
    assert.equal((await admin.form(`/advisories/${draft.id}/withdraw`, { reason: 'Wrong product line' })).statusCode, 303);
    const withdrawn = await admin.page(`/advisories/${draft.id}`);
    assert.equal((await row(draft.id)).status, 'withdrawn');
    assert.ok(!withdrawn.body.includes('<form method="post" action="/advisories/'), 'a withdrawn advisory has no forms');
    assert.match(withdrawn.body, /Withdrawn: Wrong product line/);
  });

  it('a publish the schema or readiness refuses shows why (422) and leaves the draft a draft', async () => {
    const draft = await readyDraft(t.database.db, acme.company);
    const fields = formFields((await admin.page(`/advisories/${draft.id}`)).body, `/advisories/${draft.id}`);
    // No product rows left: an advisory about nothing cannot be released.
    assert.equal((await admin.form(`/advisories/${draft.id}`, { ...fields, 'product-0-remove': 'yes', 'product-1-remove': 'yes' })).statusCode, 303);
    const shown = await admin.page(`/advisories/${draft.id}/preview`);
    assert.match(shown.body, /id="release-issues"[\s\S]*?<code>products<\/code>/);
    assert.ok(!shown.body.includes(`action="/advisories/${draft.id}/publish"`), 'a blocked preview offers no Publish');
    const res = await admin.form(`/advisories/${draft.id}/publish`, { previewedAt: (await row(draft.id)).updatedAt.toISOString() });
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /Not published: the advisory cannot be released yet: Products: list at least one product version/);
    assert.equal((await row(draft.id)).status, 'draft');
  });

  it("answers 404 for another company's advisory, to read, edit, release or download, and changes nothing", async () => {
    const theirs = await publishedAdvisory(t.database.db, rival.company);
    const before = await getAdvisoryRow(t.database.db, rival.company.id, theirs.id);
    for (const path of ['', '/csaf', '/vex', '/preview']) assert.equal((await admin.page(`/advisories/${theirs.id}${path}`)).statusCode, 404, path);
    assert.equal((await admin.form(`/advisories/${theirs.id}`, { title: 'taken over', 'product-rows': '0', 'ack-rows': '0' })).statusCode, 404);
    assert.equal((await admin.form(`/advisories/${theirs.id}/withdraw`, { reason: 'taken over' })).statusCode, 404);
    assert.equal((await admin.form(`/advisories/${theirs.id}/revise`, { summary: 'taken over' })).statusCode, 404);
    assert.equal((await admin.form('/advisories', { vulnerabilityId: theirs.vulnerabilityId })).statusCode, 404);
    assert.deepEqual(await getAdvisoryRow(t.database.db, rival.company.id, theirs.id), before);
  });

  it('a viewer reads the advisory as text, with no form, and may download its documents', async () => {
    const draft = await readyDraft(t.database.db, acme.company);
    const page = await viewer.page(`/advisories/${draft.id}`);
    assert.equal(page.statusCode, 200);
    assert.ok(!page.body.includes('<form method="post" action="/advisories'), 'no edit or release form');
    assert.match(page.body, /<td>2\.3\.0<\/td><td>affected<\/td>/);
    assert.equal((await viewer.page(`/advisories/${draft.id}/csaf`)).statusCode, 200);
    assert.equal((await viewer.form(`/advisories/${draft.id}/publish`, {})).statusCode, 403);
    assert.equal((await row(draft.id)).status, 'draft');
  });
});
