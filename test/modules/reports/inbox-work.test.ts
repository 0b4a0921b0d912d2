import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, outboxEvents, reportNotes } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { makeKey, makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';

import { dashboardClient } from '../../helpers/dashboard.js';
import { callTool, connectModern, type ListeningApp, startListeningApp } from '../../helpers/mcp.js';
import { makeMember } from '../../helpers/team.js';

// The PSIRT's inbox work (issue 37 part 7): assignee, team notes, bulk changes, over REST, MCP and the dashboard.
let t: ListeningApp;
let acme: Tenant;
let other: Tenant;
let key: string;
let member: { id: string; email: string };
before(async () => {
  t = await startListeningApp();
  acme = await makeTenant(t.database.db);
  other = await makeTenant(t.database.db);
  key = (await makeKey(t.database.db, acme, { scopes: ['read', 'triage:write'] })).key;
  member = await makeMember(t.database.db, acme.company.id, acme.admin.id, 'admin');
});
after(() => t.close());

const host = () => new URL(t.url).host;
async function api(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  const headers = { host: host(), authorization: `Bearer ${key}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) };
  const res = await t.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}) });
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as unknown) : undefined };
}
async function file(tenant = acme, description = 'Auth bypass in the T2 web UI') {
  const { report, statusToken } = await fileReport(t.database.db, operatorContext(), tenant.company, { description }, 'portal_form');
  return { id: report.submissionId, statusPath: `/status/${statusToken}` };
}
const events = (type: string) =>
  t.database.db
    .select()
    .from(outboxEvents)
    .where(and(eq(outboxEvents.companyId, acme.company.id), eq(outboxEvents.type, type)));

describe('the assignee of a report', () => {
  it('is set to a member through PATCH, audited, announced, and filters the export ("my reports")', async () => {
    const mine = await file();
    const theirs = await file();
    const set = await api('PATCH', `/vulnerabilities/${mine.id}`, { assigneeId: member.id });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal((set.body as { assigneeId: string }).assigneeId, member.id);
    const ev = (await events('vulnerability.assigned')).find((e) => e.payload.data?.submissionId === mine.id);
    assert.deepEqual(
      { ...ev?.payload.data, assignedAt: undefined },
      { submissionId: mine.id, assigneeId: member.id, previousAssigneeId: null, assignedAt: undefined },
    );
    const audit = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, mine.id), eq(auditLog.action, 'reports.update')));
    assert.deepEqual(audit[0]?.details, { changed: ['assigneeId'] });

    const assigned = await api('GET', `/vulnerabilities/export?assignee=${member.id}`);
    assert.deepEqual(
      (assigned.body as { reports: { submissionId: string }[] }).reports.map((r) => r.submissionId),
      [mine.id],
    );
    const unassigned = (await api('GET', '/vulnerabilities/export?assignee=none')).body as { reports: { submissionId: string }[] };
    assert.ok(unassigned.reports.some((r) => r.submissionId === theirs.id));
    assert.ok(!unassigned.reports.some((r) => r.submissionId === mine.id));
  });

  it("answers 404 for another company's member and leaves the report as it was", async () => {
    const r = await file();
    const res = await api('PATCH', `/vulnerabilities/${r.id}`, { assigneeId: other.admin.id });
    assert.equal(res.status, 404);
    assert.equal(((await api('GET', `/vulnerabilities/${r.id}`)).body as { assigneeId: string | null }).assigneeId, null);
  });
});

describe('team notes', () => {
  it('are kept beside the thread and never reach the researcher: not the status page, no event, no mail', async () => {
    const r = await file();
    const secret = 'Same root cause as CRADLE-INTERNAL-7731, ask firmware';
    const added = await api('POST', `/vulnerabilities/${r.id}/notes`, { body: `  ${secret}  ` });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    assert.equal((added.body as { body: string }).body, secret);
    const list = (await api('GET', `/vulnerabilities/${r.id}/notes`)).body as { body: string; authorId: string | null }[];
    assert.deepEqual(
      list.map((n) => [n.body, n.authorId]),
      [[secret, null]],
    );
    const status = await t.app.inject({ url: r.statusPath, headers: { host: `${acme.company.slug}.${host()}` } });
    assert.equal(status.statusCode, 200);
    assert.doesNotMatch(status.body, /CRADLE-INTERNAL-7731/);
    const all = await t.database.db.select().from(outboxEvents).where(eq(outboxEvents.companyId, acme.company.id));
    assert.ok(!all.some((e) => JSON.stringify(e.payload).includes('CRADLE-INTERNAL-7731')), 'no event carries a note');
    const audit = await t.database.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, r.id), eq(auditLog.action, 'reports.note')));
    assert.equal(audit.length, 1);
    assert.doesNotMatch(JSON.stringify(audit[0]?.details), /CRADLE-INTERNAL/, 'the audit row has the size, never the text');
    const foreign = await file(other);
    assert.equal((await api('POST', `/vulnerabilities/${foreign.id}/notes`, { body: 'x' })).status, 404);
    assert.equal((await api('GET', `/vulnerabilities/${foreign.id}/notes`)).status, 404);
  });
});

describe('bulk update', () => {
  it('closes each report it can as spam with the reason as a note, and names the ones it cannot', async () => {
    const a = await file();
    const b = await file();
    const fixed = await file();
    for (const status of ['accepted', 'fixed'] as const) await updateReport(t.database.db, operatorContext(), acme.company.id, fixed.id, { status });
    const foreign = await file(other);
    const res = await api('POST', '/vulnerabilities/bulk-update', { ids: [a.id, fixed.id, foreign.id, b.id], status: 'spam', reason: 'Advertising' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const body = res.body as { updated: number; failed: number; results: { submissionId: string; outcome: string; status: string | null }[] };
    assert.deepEqual(
      body.results.map((x) => [x.submissionId, x.outcome, x.status]),
      [
        [a.id, 'updated', 'spam'],
        [fixed.id, 'conflict', null],
        [foreign.id, 'not_found', null],
        [b.id, 'updated', 'spam'],
      ],
    );
    assert.deepEqual([body.updated, body.failed], [2, 2]);
    const notes = await t.database.db.select().from(reportNotes).where(eq(reportNotes.body, 'Advertising'));
    assert.deepEqual(notes.map((n) => n.reportId).sort(), [a.id, b.id].sort(), 'the refused report got no note either');
    assert.equal(((await api('GET', `/vulnerabilities/${fixed.id}`)).body as { status: string }).status, 'fixed');
    const over = await api('POST', '/vulnerabilities/bulk-update', { ids: Array.from({ length: 101 }, () => crypto.randomUUID()), status: 'spam' });
    assert.equal(over.status, 400);
  });

  it('is an MCP tool, and so are the notes', async () => {
    const r = await file(acme, 'Assigned through MCP');
    const client = await connectModern(t, key);
    try {
      const bulk = await callTool(client, 'bulk_update_vulnerabilities', { ids: [r.id], assigneeId: acme.admin.id });
      assert.equal(bulk.isError, undefined, JSON.stringify(bulk));
      assert.deepEqual((bulk.structuredContent as { updated: number }).updated, 1);
      const note = await callTool(client, 'add_vulnerability_note', { id: r.id, body: 'checked on hardware rev B' });
      assert.equal(note.isError, undefined, JSON.stringify(note));
      const list = await callTool(client, 'list_vulnerability_notes', { id: r.id });
      assert.deepEqual(
        (list.structuredContent as { result: { body: string }[] }).result.map((n) => n.body),
        ['checked on hardware rev B'],
      );
    } finally {
      await client.close();
    }
    assert.equal(((await api('GET', `/vulnerabilities/${r.id}`)).body as { assigneeId: string }).assigneeId, acme.admin.id);
  });

  it('leaves fewer unassigned reports in the overview (what waits), over REST and MCP alike', async () => {
    const before = (await api('GET', '/vulnerabilities/overview')).body as { counts: { unassigned: number; open: number } };
    const r = await file();
    await api('POST', '/vulnerabilities/bulk-update', { ids: [r.id], assigneeId: member.id });
    const after = (await api('GET', '/vulnerabilities/overview')).body as { counts: { unassigned: number; open: number } };
    assert.deepEqual([after.counts.open - before.counts.open, after.counts.unassigned - before.counts.unassigned], [1, 0]);
    const client = await connectModern(t, key);
    try {
      const viaMcp = await callTool(client, 'get_inbox_overview');
      assert.deepEqual((viaMcp.structuredContent as { counts: unknown }).counts, after.counts);
    } finally {
      await client.close();
    }
  });
});

describe('the dashboard inbox', () => {
  it('filters my reports, changes ticked reports together, and keeps notes on the report page', async () => {
    const dash = dashboardClient(t, await signInCookie(t, acme.admin.email, undefined, host()), host());
    const a = await file(acme, 'Bulk dashboard one');
    const b = await file(acme, 'Bulk dashboard two');
    const done = await dash.form('/reports/bulk', { ids: [a.id, b.id], status: 'triaging', assigneeId: acme.admin.id, reason: 'weekly triage' });
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, '/reports?changed=2');
    const mine = await dash.page('/reports?assignee=me&tab=all');
    assert.match(mine.body, /Bulk dashboard one/);
    assert.match(mine.body, /Bulk dashboard two/);
    assert.match(mine.body, /Assigned through MCP/);
    assert.doesNotMatch(mine.body, /Auth bypass in the T2 web UI/, 'only the reports assigned to me');
    const refused = await dash.form('/reports/bulk', { ids: [a.id], status: 'disclosed', reason: 'typed <b>kept</b>' });
    assert.equal(refused.statusCode, 409);
    assert.match(refused.body, /0 reports changed; 1 report not changed/);
    assert.match(refused.body, /typed &lt;b&gt;kept&lt;\/b&gt;/);

    const noted = await dash.form(`/reports/${a.id}/notes`, { body: 'call the <vendor>' });
    assert.equal(noted.statusCode, 303);
    const page = await dash.page(`/reports/${a.id}`);
    assert.match(page.body, /Team notes/);
    assert.match(page.body, /call the &lt;vendor&gt;/);
    assert.match(page.body, /weekly triage/);
    const assign = await dash.form(`/reports/${a.id}/assignee`, { assigneeId: member.id });
    assert.equal(assign.statusCode, 303);
    const assignedPage = (await dash.page(`/reports/${a.id}`)).body;
    assert.ok(assignedPage.includes(`<dd id="assignee">${member.email}</dd>`));
    assert.ok(assignedPage.includes(`assignee: ${member.email}`), 'the history names the assignee by address');
  });
});
