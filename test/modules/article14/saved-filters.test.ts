import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { removeMember } from '../../../src/modules/team/members.js';
import { makeKey, makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';
import { dashboardClient } from '../../helpers/dashboard.js';
import { callTool, connectModern, type ListeningApp, startListeningApp } from '../../helpers/mcp.js';
import { makeMember } from '../../helpers/team.js';

// Saved filters of the reports inbox (issue 37 part 7), over REST, MCP and the dashboard.
let t: ListeningApp;
let acme: Tenant;
let other: Tenant;
let key: string;
let otherKey: string;
let member: { id: string; email: string };
const ctx = operatorContext();
type Listing = {
  criteria: Record<string, string>;
  savedFilter: { id: string; name: string } | null;
  missing: string[];
  total: number;
  items: { submissionId: string }[];
};
type Saved = { id: string; name: string; criteria: Record<string, string>; missing: string[] };

before(async () => {
  t = await startListeningApp();
  acme = await makeTenant(t.database.db);
  other = await makeTenant(t.database.db);
  key = (await makeKey(t.database.db, acme, { scopes: ['read'] })).key;
  otherKey = (await makeKey(t.database.db, other, { scopes: ['read'] })).key;
  member = await makeMember(t.database.db, acme.company.id, acme.admin.id, 'psirt');
  await upsertProduct(t.database.db, ctx, acme.company.id, { name: 'Gateway G1', identifier: 'g1' });
  for (const [description, productName, cvssVector] of [
    ['High one on the gateway', 'Gateway G1', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N'],
    ['High two elsewhere', 'Sensor S1', 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N'],
    ['Low one on the gateway', 'Gateway G1', 'CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N'],
  ] as const) {
    const { report } = await fileReport(t.database.db, ctx, acme.company, { description, productName }, 'api');
    await updateReport(t.database.db, ctx, acme.company.id, report.submissionId, { cvssVector, assigneeId: member.id });
  }
});
after(() => t.close());

const host = () => new URL(t.url).host;
async function api(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, bearer = key) {
  const headers = { host: host(), authorization: `Bearer ${bearer}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) };
  const res = await t.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}) });
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as unknown) : undefined };
}
const tbody = (page: string) => /<tbody>[\s\S]*?<\/tbody>/.exec(page)?.[0] ?? '';

describe('saved filters over the API', () => {
  it('saves criteria under a name, and applying it lists what the same query typed by hand lists', async () => {
    const saved = await api('POST', '/saved-filters', {
      name: '  High on G1 ',
      criteria: { severity: 'high', product: 'Gateway G1', tab: 'all' },
    });
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    const f = saved.body as Saved;
    assert.deepEqual([f.name, f.criteria, f.missing], ['High on G1', { severity: 'high', product: 'Gateway G1', tab: 'all' }, []]);
    const applied = (await api('GET', `/vulnerabilities/inbox?saved=${f.id}`)).body as Listing;
    const typed = (await api('GET', '/vulnerabilities/inbox?severity=high&product=Gateway%20G1&tab=all')).body as Listing;
    assert.deepEqual(applied.items, typed.items);
    assert.deepEqual(applied.criteria, typed.criteria);
    assert.deepEqual(applied.savedFilter, { id: f.id, name: 'High on G1' });
    assert.equal(applied.total, 1);
    const audit = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, f.id), eq(auditLog.action, 'inbox.filters.save')));
    assert.equal(audit.length, 1);
    // Criteria typed beside a saved filter take precedence.
    const widened = (await api('GET', `/vulnerabilities/inbox?saved=${f.id}&severity=low`)).body as Listing;
    assert.deepEqual(widened.criteria, { severity: 'low', product: 'Gateway G1', tab: 'all' });
    assert.equal(widened.total, 1);
  });

  it('renames, refuses a taken name whatever its case, a long or blank name, and deletes', async () => {
    const a = (await api('POST', '/saved-filters', { name: 'Alpha', criteria: {} })).body as Saved;
    const b = (await api('POST', '/saved-filters', { name: 'Beta', criteria: { sort: 'oldest' } })).body as Saved;
    const renamed = await api('PATCH', `/saved-filters/${a.id}`, { name: 'Alpha prime' });
    assert.equal(renamed.status, 200);
    assert.equal((renamed.body as Saved).name, 'Alpha prime');
    const taken = await api('PATCH', `/saved-filters/${b.id}`, { name: 'ALPHA PRIME' });
    assert.equal(taken.status, 409);
    assert.match((taken.body as { detail: string }).detail, /named "ALPHA PRIME" exists already/);
    // The same name and criteria again (a retried request) answer the filter saved; other criteria are a conflict.
    const again = await api('POST', '/saved-filters', { name: 'Beta', criteria: { sort: 'oldest' } });
    assert.deepEqual([again.status, (again.body as Saved).id], [201, b.id]);
    assert.equal((await api('POST', '/saved-filters', { name: 'beta', criteria: { sort: 'newest' } })).status, 409);
    assert.equal((await api('POST', '/saved-filters', { name: 'x'.repeat(81) })).status, 400);
    const blank = await api('POST', '/saved-filters', { name: '   ' });
    assert.equal(blank.status, 400);
    assert.match(JSON.stringify(blank.body), /name must not be empty/);
    assert.equal((await api('POST', '/saved-filters', { name: 'Bad', criteria: { severity: 'urgent' } })).status, 400);
    assert.equal((await api('DELETE', `/saved-filters/${b.id}`)).status, 204);
    assert.equal((await api('DELETE', `/saved-filters/${b.id}`)).status, 404);
    const names = ((await api('GET', '/saved-filters')).body as Saved[]).map((x) => x.name);
    assert.ok(names.includes('Alpha prime') && !names.includes('Beta'), names.join());
  });

  it('refuses "me" from a key (a key acts for no member) and a member of another company, naming the field', async () => {
    const me = await api('POST', '/saved-filters', { name: 'Mine', criteria: { assignee: 'me' } });
    assert.equal(me.status, 400);
    assert.match((me.body as { detail: string }).detail, /acts for no member/);
    assert.equal((await api('GET', '/vulnerabilities/inbox?assignee=me')).status, 400);
    const theirs = await api('POST', '/saved-filters', { name: 'Theirs', criteria: { assignee: other.admin.id } });
    assert.equal(theirs.status, 400);
    assert.match((theirs.body as { detail: string }).detail, /criteria\.assignee: not a member of your company/);
  });

  it("answers not found for another company's filter: to apply, rename or delete", async () => {
    const theirs = (await api('POST', '/saved-filters', { name: 'Private', criteria: {} }, otherKey)).body as Saved;
    assert.equal((await api('GET', `/vulnerabilities/inbox?saved=${theirs.id}`)).status, 404);
    assert.equal((await api('PATCH', `/saved-filters/${theirs.id}`, { name: 'Stolen' })).status, 404);
    assert.equal((await api('DELETE', `/saved-filters/${theirs.id}`)).status, 404);
    assert.ok(!((await api('GET', '/saved-filters')).body as Saved[]).some((x) => x.id === theirs.id));
    assert.equal(((await api('GET', '/saved-filters', undefined, otherKey)).body as Saved[])[0]?.name, 'Private');
  });

  it('still applies a filter whose member and product are gone, and says what no longer exists', async () => {
    const leaver = await makeMember(t.database.db, acme.company.id, acme.admin.id, 'psirt');
    await upsertProduct(t.database.db, ctx, acme.company.id, { name: 'Old router', identifier: 'old-router' });
    const f = (await api('POST', '/saved-filters', { name: 'Leaver', criteria: { assignee: leaver.id, product: 'Old router' } })).body as Saved;
    assert.deepEqual(f.missing, []);
    await removeMember(t.database.db, ctx, acme.company.id, leaver.id);
    await upsertProduct(t.database.db, ctx, acme.company.id, { name: 'New router', identifier: 'old-router' });
    const applied = await api('GET', `/vulnerabilities/inbox?saved=${f.id}`);
    assert.equal(applied.status, 200);
    const body = applied.body as Listing;
    assert.deepEqual(body.missing, ['the product "Old router" no longer exists', 'the member it names as assignee is no longer in the team']);
    assert.equal(body.total, 0);
    assert.deepEqual(((await api('GET', '/saved-filters')).body as Saved[]).find((x) => x.id === f.id)?.missing, body.missing);
  });

  it('keeps at most 50 per owner', async () => {
    const c = await makeTenant(t.database.db);
    const k = (await makeKey(t.database.db, c, { scopes: ['read'] })).key;
    for (let i = 0; i < 50; i++) assert.equal((await api('POST', '/saved-filters', { name: `F${i}` }, k)).status, 201);
    const over = await api('POST', '/saved-filters', { name: 'F50' }, k);
    assert.equal(over.status, 409);
    assert.match((over.body as { detail: string }).detail, /50 saved filters are the most/);
  });

  it('search the text and the running clocks, saved like any criteria', async () => {
    const now = Date.now();
    const clocked: Record<string, string> = {};
    for (const [name, hoursAgo] of [
      ['due', 20],
      ['late', 30],
    ] as const) {
      const { report } = await fileReport(t.database.db, ctx, acme.company, { description: `Clock ${name} 100%_done`, productName: 'Clocks' }, 'api');
      await updateReport(t.database.db, ctx, acme.company.id, report.submissionId, {
        activelyExploited: true,
        awareAt: new Date(now - hoursAgo * 3600_000).toISOString(),
      });
      clocked[name] = report.submissionId;
    }
    const ids = async (query: string) => ((await api('GET', `/vulnerabilities/inbox?${query}`)).body as Listing).items.map((i) => i.submissionId);
    assert.deepEqual(await ids('clock=overdue&tab=all'), [clocked.late]);
    assert.deepEqual(await ids('clock=due_soon&tab=all'), [clocked.due]);
    assert.deepEqual((await ids('search=ON%20THE%20GATEWAY&tab=all')).length, 2);
    // LIKE's wildcards match only themselves.
    assert.deepEqual((await ids(`search=${encodeURIComponent('100%_done')}&tab=all`)).sort(), [clocked.due, clocked.late].sort());
    assert.deepEqual(await ids(`search=${encodeURIComponent('0%_d')}&tab=all&clock=overdue`), [clocked.late]);
    assert.deepEqual(await ids(`search=${encodeURIComponent('%x%')}&tab=all`), []);
    const f = (await api('POST', '/saved-filters', { name: 'Overdue clocks', criteria: { tab: 'all', clock: 'overdue', search: 'clock' } })).body as Saved;
    assert.deepEqual(await ids(`saved=${f.id}`), [clocked.late]);
  });

  it('are MCP tools generated from the same operations', async () => {
    const client = await connectModern(t, key);
    try {
      const saved = await callTool(client, 'save_inbox_filter', { name: 'Via MCP', criteria: { severity: 'low', tab: 'all' } });
      assert.equal(saved.isError, undefined, JSON.stringify(saved));
      const id = (saved.structuredContent as Saved).id;
      const list = await callTool(client, 'list_inbox', { saved: id });
      const items = (list.structuredContent as Listing).items;
      assert.deepEqual(items, ((await api('GET', '/vulnerabilities/inbox?severity=low&tab=all')).body as Listing).items);
      assert.equal(items.length, 1);
      const renamed = await callTool(client, 'update_inbox_filter', { id, name: 'Via MCP, renamed' });
      assert.equal((renamed.structuredContent as Saved).name, 'Via MCP, renamed');
      const all = await callTool(client, 'list_saved_filters');
      assert.ok((all.structuredContent as { result: Saved[] }).result.some((x) => x.name === 'Via MCP, renamed'));
      const gone = await callTool(client, 'delete_inbox_filter', { id });
      assert.equal(gone.isError, undefined, JSON.stringify(gone));
      assert.equal((await callTool(client, 'delete_inbox_filter', { id })).isError, true);
    } finally {
      await client.close();
    }
  });
});

describe('saved filters in the dashboard', () => {
  it("are each member's own: saved from the inbox, applied, renamed and deleted, refusals keeping the typed name", async () => {
    const admin = dashboardClient(t, await signInCookie(t, acme.admin.email, undefined, host()), host());
    const psirt = dashboardClient(t, await signInCookie(t, member.email, undefined, host()), host());
    const saved = await psirt.form('/reports/saved-filters', { name: 'My <high>', tab: 'all', severity: 'high', assignee: 'me', sort: 'newest' });
    assert.equal(saved.statusCode, 303, saved.body);
    const id = /^\/reports\?saved=([0-9a-f-]{36})&filters=saved$/.exec(saved.headers.location ?? '')?.[1];
    assert.ok(id, saved.headers.location);
    const applied = await psirt.page(`/reports?saved=${id}&filters=saved`);
    assert.match(applied.body, /Showing your saved filter &quot;My &lt;high&gt;&quot;/);
    assert.match(applied.body, /Filter saved\./);
    const typed = await psirt.page('/reports?tab=all&severity=high&assignee=me&sort=newest');
    assert.equal(tbody(applied.body), tbody(typed.body));
    assert.match(tbody(applied.body), /High one on the gateway/);
    assert.match(tbody(applied.body), /High two elsewhere/);
    assert.doesNotMatch(tbody(applied.body), /Low one on the gateway/);
    const searched = await psirt.page('/reports?tab=all&search=GATEWAY&clock=');
    assert.match(tbody(searched.body), /High one on the gateway/);
    assert.match(tbody(searched.body), /Low one on the gateway/);
    assert.doesNotMatch(tbody(searched.body), /High two elsewhere/);
    assert.match(searched.body, /<input type="hidden" name="search" value="GATEWAY">/, 'the save form carries the search');

    // Another member neither sees it nor can touch it.
    const seen = await admin.page('/reports');
    assert.doesNotMatch(seen.body, /My &lt;high&gt;/);
    assert.equal((await admin.page(`/reports?saved=${id}`)).statusCode, 404);
    assert.equal((await admin.form(`/reports/saved-filters/${id}`, { name: 'Mine now' })).statusCode, 404);
    assert.equal((await admin.form(`/reports/saved-filters/${id}/delete`, {})).statusCode, 404);

    const blank = await psirt.form('/reports/saved-filters', { name: '  ', tab: 'new' });
    assert.equal(blank.statusCode, 400);
    assert.match(blank.body, /Not saved: /);
    const dup = await psirt.form('/reports/saved-filters', { name: 'MY <HIGH>', tab: 'new' });
    assert.equal(dup.statusCode, 409);
    assert.match(dup.body, /id="filter-name" name="name" value="MY &lt;HIGH&gt;"/);
    const renameTaken = await psirt.form('/reports/saved-filters', { name: 'Second' });
    assert.equal(renameTaken.statusCode, 303);
    const refused = await psirt.form(`/reports/saved-filters/${id}`, { name: 'second' });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, new RegExp(`id="rename-${id}" name="name" value="second"`));
    const renamed = await psirt.form(`/reports/saved-filters/${id}`, { name: 'High, mine' });
    assert.equal(renamed.headers.location, '/reports?filters=renamed');
    assert.match((await psirt.page('/reports?filters=renamed')).body, /<a href="\/reports\?saved=[^"]+" ?>High, mine<\/a>/);
    const deleted = await psirt.form(`/reports/saved-filters/${id}/delete`, {});
    assert.equal(deleted.headers.location, '/reports?filters=deleted');
    assert.doesNotMatch((await psirt.page('/reports')).body, /High, mine/);
  });

  it('keeps the saved filter through its pages and tabs: the links carry saved=, later pages say so', async () => {
    for (let i = 0; i < 26; i++) await fileReport(t.database.db, ctx, acme.company, { description: `Paged report ${i}`, productName: 'Pager P1' }, 'api');
    const psirt = dashboardClient(t, await signInCookie(t, member.email, undefined, host()), host());
    const saved = await psirt.form('/reports/saved-filters', { name: 'Pager reports', tab: 'all', product: 'Pager P1', sort: 'oldest' });
    const id = /saved=([0-9a-f-]{36})/.exec(saved.headers.location ?? '')?.[1] ?? '';
    const first = await psirt.page(`/reports?saved=${id}`);
    const next = /<a href="([^"]+)" rel="next">/.exec(first.body)?.[1]?.replaceAll('&amp;', '&') ?? '';
    assert.equal(next, `/reports?saved=${id}&tab=all&product=Pager+P1&sort=oldest&page=2`);
    const second = await psirt.page(next);
    assert.equal(second.statusCode, 200);
    assert.match(second.body, /Showing your saved filter &quot;Pager reports&quot;\./);
    assert.match(second.body, new RegExp(`<a href="/reports\\?saved=${id}" aria-current="true">Pager reports</a>`));
    assert.match(second.body, /Page 2 of 2 \(26 reports\)/);
    assert.match(tbody(second.body), /Paged report 25/, 'oldest first: the last filed is on page 2');
    assert.doesNotMatch(tbody(second.body), /Paged report 0</);
    const prev = /<a href="([^"]+)" rel="prev">/.exec(second.body)?.[1]?.replaceAll('&amp;', '&');
    assert.equal(prev, `/reports?saved=${id}&tab=all&product=Pager+P1&sort=oldest`);

    // A tab link keeps the filter too, and says the tab changed it.
    const tab = /<a href="([^"]+)" >New/.exec(second.body)?.[1]?.replaceAll('&amp;', '&') ?? '';
    assert.equal(tab, `/reports?saved=${id}&tab=new&product=Pager+P1&sort=oldest`);
    const onTab = await psirt.page(tab);
    assert.match(onTab.body, /Showing your saved filter &quot;Pager reports&quot;, changed by the choices made here/);
    assert.match(onTab.body, /<a href="\/reports\?saved=[^"]+&amp;tab=new[^"]*" aria-current="page">New/);
  });

  it('lets a viewer keep filters of their own', async () => {
    const viewer = await makeMember(t.database.db, acme.company.id, acme.admin.id, 'viewer');
    const page = dashboardClient(t, await signInCookie(t, viewer.email, undefined, host()), host());
    const saved = await page.form('/reports/saved-filters', { name: 'Viewer view', tab: 'closed' });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.match((await page.page('/reports')).body, />Viewer view<\/a>/);
  });
});
