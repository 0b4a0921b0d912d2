// The known-vulnerability pages: list with filters, one flaw across products, the decision form
// (same verbs as the API), escaping of advisory text, and not-found for another company's match.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { operatorContext } from '../../src/kernel/context.js';
import { getReport } from '../../src/modules/reports/get-report.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { openCase } from '../../src/modules/cases/open-case.js';
import { listKnownVulns } from '../../src/modules/known-vulns/list-known-vulns.js';
import { refreshVulndb } from '../../src/modules/known-vulns/refresh-vulndb.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../src/modules/sboms/push-sbom.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';
import { makeMember } from '../helpers/team.js';
import { cycloneDxOf, feedFolder } from '../helpers/vulndb.js';

const EVIL = '<img src=x onerror=alert(1)>';
let t: TestApp;
let acme: Tenant;
let rival: Tenant;
let client: ReturnType<typeof dashboardClient>;
const ctx = operatorContext();
const LOG4J = { name: 'log4j-core', version: '2.14.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1' };
const LEFTPAD = { name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' };

before(async () => {
  t = await createTestApp();
  const db = t.database.db;
  await refreshVulndb(
    db,
    feedFolder([
      {
        id: 'GHSA-jfh8-c2jp-5v3q',
        aliases: ['CVE-2021-44228'],
        ecosystem: 'Maven',
        name: 'org.apache.logging.log4j:log4j-core',
        events: [{ introduced: '2.13.0' }, { fixed: '2.15.0' }],
      },
      // Advisory text is third-party input: it must be escaped on the page.
      {
        id: 'TEST-LEFTPAD-7',
        aliases: ['CVE-2099-0007'],
        ecosystem: 'npm',
        name: 'left-pad',
        events: [{ introduced: '0' }, { fixed: '2.0.0' }],
        summary: `left-pad ${EVIL}`,
      },
    ]),
  );
  acme = await makeTenant(db);
  rival = await makeTenant(db);
  for (const id of ['router', 'sensor']) {
    await upsertProduct(db, ctx, acme.company.id, { name: id, identifier: id });
    await pushSbom(db, ctx, acme.company.id, id, cycloneDxOf(id === 'router' ? [LOG4J, LEFTPAD] : [LOG4J]));
  }
  await upsertProduct(db, ctx, rival.company.id, { name: 'rival', identifier: 'rival' });
  await pushSbom(db, ctx, rival.company.id, 'rival', cycloneDxOf([LOG4J]));
  client = dashboardClient(t, await signInCookie(t, acme.admin.email));
});
after(() => t.close());

const matchOf = async (companyId: string, vulnerability: string, product: string) =>
  (await listKnownVulns(t.database.db, companyId, { vulnerability, product })).items[0]!;

describe('dashboard known vulnerabilities', () => {
  it('lists the matches of every product, escapes advisory text, and filters to one flaw across products', async () => {
    const all = await client.page('/known-vulnerabilities');
    assert.equal(all.statusCode, 200);
    assert.match(all.body, /CVE-2021-44228/);
    assert.match(all.body, /CVE-2099-0007/);
    assert.ok(!all.body.includes(EVIL), 'advisory text is escaped');
    assert.ok(all.body.includes('left-pad &lt;img src=x onerror=alert(1)&gt;'));
    const exposed = await client.page('/known-vulnerabilities?vulnerability=ghsa-jfh8-c2jp-5v3q');
    const products = [...exposed.body.matchAll(/<code>(router|sensor|rival)<\/code><\/a>/g)].map((m) => m[1]).sort();
    assert.deepEqual(products, ['router', 'sensor']);
    const bad = await client.page('/known-vulnerabilities?minEpss=7&product=nope');
    assert.equal(bad.statusCode, 400);
    assert.match(bad.body, /Some filters were invalid/);
  });

  it('records a decision from the form and shows it in the history; across products when asked', async () => {
    const m = await matchOf(acme.company.id, 'CVE-2021-44228', 'router');
    const res = await client.form(`/known-vulnerabilities/${m.id}/decision`, {
      state: 'not_affected',
      justification: 'code_not_reachable',
      response: ['will_not_fix'],
      detail: 'No attacker input reaches the logger.',
    });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, `/known-vulnerabilities/${m.id}?done=1`);
    const detail = await client.page(res.headers.location!);
    assert.match(detail.body, /The decision was recorded\./);
    // Issue 34: the component's upstream maintainer is one click away, by its package URL.
    const link = /<a id="find-upstream" href="([^"]+)">/.exec(detail.body)?.[1] ?? '';
    assert.match(link, /^\/upstream-contacts\?purl=pkg%3Amaven%2Forg\.apache\.logging\.log4j%2Flog4j-core%40/);
    assert.match(
      detail.body,
      /<td>not affected<\/td><td>the code is not reachable<\/td>\s*<td>will not be fixed<\/td><td>No attacker input reaches the logger\.<\/td>/,
    );
    assert.equal((await matchOf(acme.company.id, 'CVE-2021-44228', 'sensor')).analysis, null);

    const across = await client.form(`/known-vulnerabilities/${m.id}/decision`, {
      state: 'exploitable',
      detail: 'Reachable after all: upgrading.',
      everywhere: '1',
    });
    assert.equal(across.headers.location, `/known-vulnerabilities/${m.id}?done=2`);
    assert.equal((await matchOf(acme.company.id, 'CVE-2021-44228', 'sensor')).analysis?.state, 'exploitable');
    assert.equal((await matchOf(rival.company.id, 'CVE-2021-44228', 'rival')).analysis, null, "another company's match is untouched");
  });

  it('re-renders the form with the reason when the input is wrong, and saves nothing', async () => {
    const m = await matchOf(acme.company.id, 'CVE-2099-0007', 'router');
    const res = await client.form(`/known-vulnerabilities/${m.id}/decision`, { state: 'not_affected', detail: 'Vendored copy is patched.' });
    assert.equal(res.statusCode, 400);
    assert.match(res.body, /not_affected needs a justification/);
    assert.match(res.body, /Vendored copy is patched\./, 'what was typed is kept');
    assert.equal((await matchOf(acme.company.id, 'CVE-2099-0007', 'router')).analysis, null);
    const noCsrf = await client.form(`/known-vulnerabilities/${m.id}/decision`, { state: 'in_triage', detail: 'x' }, false);
    assert.equal(noCsrf.statusCode, 403);
  });

  it('shows the awareness decisions waiting; confirming opens the Article 14 case, dismissing needs a reason', async () => {
    await t.database.db.execute(sql`insert into vulndb_kev (cve_id, vendor_project, product, name, date_added, required_action, known_ransomware)
      values ('CVE-2021-44228', 'Apache', 'Log4j2', 'Log4Shell', '2021-12-10', 'Apply updates.', 'Known') on conflict do nothing`);
    // The KEV flag and the decisions follow the next match of each product.
    for (const id of ['router', 'sensor']) await pushSbom(t.database.db, ctx, acme.company.id, id, cycloneDxOf(id === 'router' ? [LOG4J, LEFTPAD] : [LOG4J]));
    const list = await client.page('/known-vulnerabilities');
    assert.match(list.body, /Awareness decisions waiting \(CRA Article 14\)/);
    const ids = [...list.body.matchAll(/name="ids" value="([0-9a-f-]{36})" checked/g)].map((m) => m[1]!);
    assert.equal(ids.length, 2);
    const refused = await client.form('/known-vulnerabilities/awareness/bulk', { action: 'dismiss', ids: ids[1]!, reason: '' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /say why/);
    const confirmed = await client.form('/known-vulnerabilities/awareness/bulk', {
      action: 'confirm',
      ids: ids[0]!,
      awareAt: '2026-11-25T08:00',
      note: 'Seen in the wild against our gateways.',
    });
    assert.equal(confirmed.statusCode, 303);
    const reportId = /^\/reports\/([0-9a-f-]{36})$/.exec(confirmed.headers.location ?? '')?.[1];
    assert.ok(reportId, confirmed.headers.location);
    const report = await getReport(t.database.db, acme.company.id, reportId);
    assert.deepEqual([report.activelyExploited, report.awareAt], [true, '2026-11-25T08:00:00.000Z']);
    // Confirmed in the dashboard, so recorded as such: on the report and in the webhook payload (issue 38).
    assert.equal(report.source, 'dashboard');
    // Cradle opened it: labelled as its own record, never as a reporter's untrusted submission.
    const view = await client.page(`/reports/${reportId}`);
    assert.match(view.body, /<h2 id="opened-title">Opened by Cradle <span class="tag">known vulnerability<\/span><\/h2>/);
    assert.match(view.body, /confirmed awareness of <a href="\/known-vulnerabilities\?vulnerability=[^"]+">[^<]+<\/a> in router/);
    assert.doesNotMatch(view.body, /Written by the reporter/);
    // Labelled wherever reports are listed: the inbox, a case holding it, the CSV download; a filed report is not.
    const { report: filed } = await fileReport(t.database.db, ctx, acme.company, { description: 'Filed by a person through the portal' }, 'portal_form');
    const inbox = await client.page('/reports?tab=all');
    const rowOf = (id: string) =>
      new RegExp(`<a href="/reports/${id}">[^<]*</a>( <span class="tag opened-by-cradle">Opened by Cradle</span>)?<br>`).exec(inbox.body);
    assert.ok(rowOf(reportId)?.[1], 'the inbox marks the report Cradle opened');
    assert.ok(rowOf(filed.submissionId) && !rowOf(filed.submissionId)?.[1], 'and no other');
    const kase = await openCase(t.database.db, ctx, acme.company.id, { title: 'Log4Shell upstream', reportIds: [reportId, filed.submissionId] });
    const casePage = await client.page(`/cases/${kase.id}`);
    assert.match(
      casePage.body,
      new RegExp(`<a href="/reports/${reportId}"><code>${reportId.slice(0, 8)}</code></a> <span class="tag opened-by-cradle">Opened by Cradle</span>`),
    );
    assert.match(casePage.body, new RegExp(`<a href="/reports/${filed.submissionId}"><code>${filed.submissionId.slice(0, 8)}</code></a> (?!<span class="tag)`));
    const csv = (await client.page('/reports/export')).body.split('\r\n');
    const column = csv[0]?.split(',').indexOf('opened_by_cradle') ?? -1;
    assert.ok(column > 0, csv[0]);
    const cell = (id: string) => csv.find((l) => l.startsWith(`"${id}"`))?.split(',')[column];
    assert.deepEqual([cell(reportId), cell(filed.submissionId)], ['"true"', '"false"']);
    const events = (await t.database.db.execute(
      sql`select payload->'data'->>'source' as source from outbox_events where type = 'vulnerability.reported' and payload->'data'->>'submissionId' = ${reportId}`,
    )) as unknown as { rows: { source: string }[] };
    assert.deepEqual(
      events.rows.map((e) => e.source),
      ['dashboard'],
    );
    const dismissed = await client.form('/known-vulnerabilities/awareness/bulk', {
      action: 'dismiss',
      ids: ids[1]!,
      reason: 'The sensor build strips the lookup class.',
    });
    assert.equal(dismissed.headers.location, '/known-vulnerabilities?done=dismissed&n=1');
    const after = await client.page('/known-vulnerabilities?done=dismissed&n=1');
    assert.doesNotMatch(after.body, /Awareness decisions waiting/);
    assert.match(after.body, /The awareness decision was dismissed/);
    // Taken already: a repeated confirmation changes nothing (the bulk verb is idempotent); the other way is refused.
    const again = await client.form('/known-vulnerabilities/awareness/bulk', { action: 'confirm', ids: ids[0]! });
    assert.equal(again.headers.location, '/known-vulnerabilities?done=unchanged&n=0');
    const reversed = await client.form('/known-vulnerabilities/awareness/bulk', { action: 'dismiss', ids: ids[0]!, reason: 'no' });
    assert.equal(reversed.statusCode, 409);
    assert.match(reversed.body, /already confirmed/);
  });

  it("answers not found for another company's match, to read or to decide", async () => {
    const foreign = await matchOf(rival.company.id, 'CVE-2021-44228', 'rival');
    assert.equal((await client.page(`/known-vulnerabilities/${foreign.id}`)).statusCode, 404);
    const res = await client.form(`/known-vulnerabilities/${foreign.id}/decision`, { state: 'in_triage', detail: 'probe' });
    assert.equal(res.statusCode, 404);
    assert.equal((await matchOf(rival.company.id, 'CVE-2021-44228', 'rival')).analysis, null);
  });

  it("shows administrators each feed's last import, records and last error, and nobody else", async () => {
    // A synchronised feed that failed, as the sync records it (the sync itself is tested in test/modules/known-vulns/feed-sync.test.ts).
    await t.database.db.execute(
      sql`insert into vulndb_sources (source, records, checked_at, last_error) values ('url:https://mirror.example/npm/all.zip', 0, now(), 'answered 503 <b>')`,
    );
    const page = await client.page('/known-vulnerabilities');
    const section = /<details class="card" id="feeds">[\s\S]*?<\/details>/.exec(page.body)?.[0] ?? '';
    assert.match(section, /Vulnerability feeds \(1\) <span class="badge overdue">failing<\/span>/);
    assert.match(
      section,
      /<td><code>url:https:\/\/mirror\.example\/npm\/all\.zip<\/code><\/td><td>never<\/td><td><time [^>]+>[^<]+<\/time><\/td><td>0<\/td><td>answered 503 &lt;b&gt;<\/td>/,
    );
    const viewer = await makeMember(t.database.db, acme.company.id, acme.admin.id, 'viewer');
    const seen = await dashboardClient(t, await signInCookie(t, viewer.email)).page('/known-vulnerabilities');
    assert.equal(seen.statusCode, 200);
    assert.ok(!seen.body.includes('id="feeds"'), 'a viewer does not see the feeds');
  });
});
