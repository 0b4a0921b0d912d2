// KEV awareness decisions grouped by vulnerability and component, confirmed or dismissed together
// (issue 37 part 7): over REST, MCP and the dashboard, each decision as one by one would take it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq, inArray } from 'drizzle-orm';
import { auditLog, outboxEvents, reports } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { getArticle14 } from '../../../src/modules/article14/article14.js';
import { confirmAwareness, listAwareness } from '../../../src/modules/known-vulns/awareness.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { getReport } from '../../../src/modules/reports/get-report.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { makeKey, makeTenant, signInCookie } from '../../helpers/access.js';
import { dashboardClient } from '../../helpers/dashboard.js';
import { callTool, connectModern, type ListeningApp, startListeningApp } from '../../helpers/mcp.js';
import { makeMember } from '../../helpers/team.js';
import { cycloneDxOf, importLog4Shell, LOG4J } from '../../helpers/vulndb.js';

const LOG4J_OLD = { name: 'log4j-core', version: '2.13.3', purl: 'pkg:maven/org.apache.logging.log4j/log4j-core@2.13.3' };
const PACKAGE_KEY = 'maven/org.apache.logging.log4j/log4j-core';
const ctx = operatorContext();
let t: ListeningApp;

type Group = {
  vulnerability: string;
  packageKey: string;
  package: string;
  versions: string[];
  productCount: number;
  sbomCount: number;
  pending: number;
  decisions: { id: string; productIdentifier: string; versions: string[]; state: string }[];
};
type Bulk = {
  decided: number;
  unchanged: number;
  failed: number;
  remaining: number;
  results: { id: string; outcome: string; productIdentifier: string | null; reportId: string | null }[];
};

before(async () => {
  t = await startListeningApp();
  await importLog4Shell(t.database.db);
});
after(() => t.close());

/** A company whose products each ship log4j-core (the first one an older version), with a triage key and a read key. */
async function tenantWith(products: string[]) {
  const tenant = await makeTenant(t.database.db);
  for (const [i, id] of products.entries()) {
    await upsertProduct(t.database.db, ctx, tenant.company.id, { name: `Gateway ${id}`, identifier: id });
    await pushSbom(t.database.db, ctx, tenant.company.id, id, cycloneDxOf([i === 0 ? LOG4J_OLD : LOG4J]));
  }
  const write = (await makeKey(t.database.db, tenant, { scopes: ['read', 'triage:write'] })).key;
  const read = (await makeKey(t.database.db, tenant, { scopes: ['read'] })).key;
  return { tenant, write, read };
}
const host = () => new URL(t.url).host;
async function api(key: string, method: 'GET' | 'POST', url: string, payload?: unknown) {
  const headers = { host: host(), authorization: `Bearer ${key}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) };
  const res = await t.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}) });
  return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as unknown) : undefined };
}
const auditOf = (companyId: string, action: string) =>
  t.database.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.companyId, companyId), eq(auditLog.action, action)));

describe('awareness decisions grouped and decided together, over the API', () => {
  it('groups the decisions by vulnerability and package, with the products and SBOMs reached', async () => {
    const { tenant, read } = await tenantWith(['gw-a', 'gw-b', 'gw-c']);
    const res = await api(read, 'GET', '/known-vulnerabilities/awareness/groups');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const groups = res.body as Group[];
    assert.equal(groups.length, 1);
    const [g] = groups;
    assert.deepEqual(
      [g?.vulnerability, g?.packageKey, g?.package, g?.versions, g?.productCount, g?.sbomCount, g?.pending],
      ['CVE-2021-44228', PACKAGE_KEY, 'pkg:maven/org.apache.logging.log4j/log4j-core', ['2.13.3', '2.14.1'], 3, 3, 3],
    );
    assert.deepEqual(
      g?.decisions.map((d) => [d.productIdentifier, d.versions, d.state]),
      [
        ['gw-a', ['2.13.3'], 'pending'],
        ['gw-b', ['2.14.1'], 'pending'],
        ['gw-c', ['2.14.1'], 'pending'],
      ],
    );
    const single = await listAwareness(t.database.db, tenant.company.id);
    assert.deepEqual(g?.decisions.map((d) => d.id).sort(), single.map((a) => a.id).sort());
  });

  it('confirms a selection each as one by one would: a report per product, Article 14 clocks, events and audit; again changes nothing', async () => {
    const { tenant, write } = await tenantWith(['gw-a', 'gw-b', 'gw-c']);
    const other = await tenantWith(['rival']);
    const [a, b, c] = await listAwareness(t.database.db, tenant.company.id);
    const [foreign] = await listAwareness(t.database.db, other.tenant.company.id);
    const awareAt = new Date(Date.now() - 2 * 3600_000).toISOString();
    const res = await api(write, 'POST', '/known-vulnerabilities/awareness/bulk', {
      action: 'confirm',
      ids: [a!.id, foreign!.id, b!.id],
      awareAt,
      note: 'Exploited at a customer.',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const r = res.body as Bulk;
    assert.deepEqual(
      r.results.map((x) => [x.id, x.outcome, x.productIdentifier]),
      [
        [a!.id, 'confirmed', a!.productIdentifier],
        [foreign!.id, 'not_found', null],
        [b!.id, 'confirmed', b!.productIdentifier],
      ],
    );
    assert.deepEqual([r.decided, r.unchanged, r.failed, r.remaining], [2, 0, 1, 0]);
    // The same as a single confirmation: compare with one taken one by one.
    const one = await confirmAwareness(t.database.db, ctx, tenant.company.id, c!.id, { awareAt, note: 'Exploited at a customer.' }, 'api');
    for (const reportId of [r.results[0]!.reportId!, r.results[2]!.reportId!, one.reportId!]) {
      const report = await getReport(t.database.db, tenant.company.id, reportId);
      assert.deepEqual([report.activelyExploited, report.awareAt, report.source], [true, awareAt, 'api']);
      assert.match(report.description, /Exploited at a customer\.$/);
      const early = (await getArticle14(t.database.db, tenant.company.id, reportId)).stages.find((s) => s.stage === 'early_warning');
      assert.equal(early?.dueAt, new Date(Date.parse(awareAt) + 24 * 3600_000).toISOString());
    }
    const audit = await auditOf(tenant.company.id, 'knownVulnerabilities.awareness.confirm');
    assert.equal(audit.length, 3);
    assert.deepEqual(
      audit.map((x) => Object.keys(x.details as object).sort()),
      Array(3).fill(['awareAt', 'product', 'reportId', 'vulnerability']),
    );
    const reported = await t.database.db
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, tenant.company.id), eq(outboxEvents.type, 'vulnerability.reported')));
    assert.equal(reported.length, 3);

    const again = (await api(write, 'POST', '/known-vulnerabilities/awareness/bulk', { action: 'confirm', ids: [a!.id, b!.id], awareAt })).body as Bulk;
    assert.deepEqual(
      again.results.map((x) => [x.outcome, x.reportId]),
      [
        ['unchanged', r.results[0]!.reportId],
        ['unchanged', r.results[2]!.reportId],
      ],
    );
    const opened = await t.database.db.select({ id: reports.id }).from(reports).where(eq(reports.companyId, tenant.company.id));
    assert.equal(opened.length, 3, 'a repeated call opens no report');
    const dismiss = (await api(write, 'POST', '/known-vulnerabilities/awareness/bulk', { action: 'dismiss', ids: [a!.id], reason: 'changed our mind' }))
      .body as Bulk;
    assert.deepEqual([dismiss.results[0]?.outcome, dismiss.failed], ['conflict', 1]);
  });

  it('dismisses a whole group with the reason, and a repeated call finds nothing left', async () => {
    const { tenant, write } = await tenantWith(['gw-a', 'gw-b']);
    const group = { vulnerability: 'CVE-2021-44228', packageKey: PACKAGE_KEY };
    const res = await api(write, 'POST', '/known-vulnerabilities/awareness/bulk', {
      action: 'dismiss',
      group,
      reason: 'The build excludes the JNDI lookup class.',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([(res.body as Bulk).decided, (res.body as Bulk).remaining], [2, 0]);
    const all = await listAwareness(t.database.db, tenant.company.id, { state: 'all' });
    assert.deepEqual(
      all.map((x) => [x.state, x.reason]),
      [
        ['dismissed', 'The build excludes the JNDI lookup class.'],
        ['dismissed', 'The build excludes the JNDI lookup class.'],
      ],
    );
    const audit = await auditOf(tenant.company.id, 'knownVulnerabilities.awareness.dismiss');
    assert.equal(audit.length, 2);
    assert.doesNotMatch(JSON.stringify(audit.map((x) => x.details)), /JNDI/, 'the reason stays out of the audit log');
    const again = (await api(write, 'POST', '/known-vulnerabilities/awareness/bulk', { action: 'dismiss', group, reason: 'again' })).body as Bulk;
    assert.deepEqual([again.decided, again.results.length], [0, 0]);
    const confirmed = await api(write, 'GET', '/known-vulnerabilities/awareness/groups?state=dismissed');
    assert.equal((confirmed.body as Group[])[0]?.decisions.length, 2);
    const unknown = await api(write, 'POST', '/known-vulnerabilities/awareness/bulk', {
      action: 'dismiss',
      group: { ...group, packageKey: 'npm/left-pad' },
      reason: 'x',
    });
    assert.deepEqual([unknown.status, (unknown.body as Bulk).results], [200, []]);
  });

  it('refuses bad requests whole before deciding anything, and a key without triage:write', async () => {
    const { tenant, write, read } = await tenantWith(['gw-a']);
    const [a] = await listAwareness(t.database.db, tenant.company.id);
    const post = (body: unknown, key = write) => api(key, 'POST', '/known-vulnerabilities/awareness/bulk', body);
    const noReason = await post({ action: 'dismiss', ids: [a!.id] });
    assert.equal(noReason.status, 400);
    assert.match(JSON.stringify(noReason.body), /say why/);
    assert.equal((await post({ action: 'confirm', ids: [a!.id], group: { vulnerability: 'CVE-2021-44228', packageKey: PACKAGE_KEY } })).status, 400);
    assert.equal((await post({ action: 'confirm', ids: Array.from({ length: 101 }, () => crypto.randomUUID()) })).status, 400);
    assert.equal((await post({ action: 'confirm', ids: [a!.id], awareAt: new Date(Date.now() + 3600_000).toISOString() })).status, 400);
    const refused = await post({ action: 'confirm', ids: [a!.id] }, read);
    assert.equal(refused.status, 403);
    assert.deepEqual(
      (await listAwareness(t.database.db, tenant.company.id)).map((x) => x.state),
      ['pending'],
    );
  });

  it('is MCP tools generated from the same operations', async () => {
    const { tenant, write } = await tenantWith(['gw-a', 'gw-b']);
    const client = await connectModern(t, write);
    try {
      const groups = await callTool(client, 'list_awareness_groups');
      const [g] = (groups.structuredContent as { result: Group[] }).result;
      assert.equal(g?.productCount, 2);
      const done = await callTool(client, 'bulk_decide_awareness', {
        action: 'confirm',
        group: { vulnerability: g!.vulnerability, packageKey: g!.packageKey },
      });
      assert.equal(done.isError, undefined, JSON.stringify(done));
      const r = done.structuredContent as Bulk;
      assert.equal(r.decided, 2);
      const sources = await t.database.db
        .select({ source: reports.source })
        .from(reports)
        .where(
          inArray(
            reports.id,
            r.results.map((x) => x.reportId!),
          ),
        );
      assert.deepEqual(
        sources.map((s) => s.source),
        ['mcp', 'mcp'],
      );
    } finally {
      await client.close();
    }
    assert.deepEqual(await listAwareness(t.database.db, tenant.company.id), []);
  });
});

describe('awareness groups in the dashboard', () => {
  it('confirms the ticked products of a group in one post; a viewer sees the groups without controls', async () => {
    const { tenant } = await tenantWith(['gw-a', 'gw-b', 'gw-c']);
    const admin = dashboardClient(t, await signInCookie(t, tenant.admin.email, undefined, host()), host());
    const page = await admin.page('/known-vulnerabilities');
    assert.match(page.body, /CVE-2021-44228 in <code>pkg:maven\/org\.apache\.logging\.log4j\/log4j-core<\/code>/);
    assert.match(page.body, /3 products, 3 SBOMs; versions 2\.13\.3, 2\.14\.1/);
    const ids = [...page.body.matchAll(/name="ids" value="([0-9a-f-]{36})" checked/g)].map((m) => m[1]!);
    assert.equal(ids.length, 3);

    const refused = await admin.form('/known-vulnerabilities/awareness/bulk', { action: 'dismiss', ids: ids.slice(0, 2), reason: '  ' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /Not recorded: /);
    // The ticks come back as they were sent.
    assert.equal([...refused.body.matchAll(/name="ids" value="[0-9a-f-]{36}" checked/g)].length, 2);
    const none = await admin.form('/known-vulnerabilities/awareness/bulk', { action: 'confirm' });
    assert.equal(none.statusCode, 400);
    assert.match(none.body, /tick at least one product/);

    const done = await admin.form('/known-vulnerabilities/awareness/bulk', {
      action: 'confirm',
      ids: ids.slice(0, 2),
      awareAt: '2026-11-25T08:00',
      note: 'seen <in> the wild',
    });
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, '/known-vulnerabilities?done=confirmed&n=2');
    const after = await admin.page('/known-vulnerabilities?done=confirmed&n=2');
    assert.match(after.body, /2 awareness decisions confirmed/);
    assert.match(after.body, /1 product, 1 SBOM/);
    const decided = await listAwareness(t.database.db, tenant.company.id, { state: 'confirmed' });
    assert.equal(decided.length, 2);
    for (const d of decided) {
      const report = await getReport(t.database.db, tenant.company.id, d.reportId!);
      assert.deepEqual([report.awareAt, report.source], ['2026-11-25T08:00:00.000Z', 'dashboard']);
    }
    // One confirmation leads straight to its report, as the single form did.
    const last = await admin.form('/known-vulnerabilities/awareness/bulk', { action: 'confirm', ids: ids[2]! });
    assert.match(last.headers.location ?? '', /^\/reports\/[0-9a-f-]{36}$/);

    const other = await tenantWith(['gw-x']);
    const viewer = await makeMember(t.database.db, other.tenant.company.id, other.tenant.admin.id, 'viewer');
    const seen = dashboardClient(t, await signInCookie(t, viewer.email, undefined, host()), host());
    const view = await seen.page('/known-vulnerabilities');
    assert.match(view.body, /Awareness decisions waiting/);
    assert.match(view.body, /<code>gw-x<\/code>/);
    assert.doesNotMatch(view.body, /awareness\/bulk|name="ids"/);
    const [pending] = await listAwareness(t.database.db, other.tenant.company.id);
    const post = await seen.form('/known-vulnerabilities/awareness/bulk', { action: 'dismiss', ids: pending!.id, reason: 'sneaky' });
    assert.equal(post.statusCode, 403);
    assert.equal((await listAwareness(t.database.db, other.tenant.company.id)).length, 1);
  });
});
