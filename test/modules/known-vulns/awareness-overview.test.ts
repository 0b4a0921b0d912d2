// The overview says how many KEV awareness decisions wait and in how many groups, over REST, MCP
// and the dashboard home, linking to the grouped form on /known-vulnerabilities.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import { refreshVulndb } from '../../../src/modules/known-vulns/refresh-vulndb.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { makeKey, makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';
import { dashboardClient } from '../../helpers/dashboard.js';
import { callTool, connectModern, type ListeningApp, startListeningApp } from '../../helpers/mcp.js';
import { makeMember } from '../../helpers/team.js';
import { type Component, cycloneDxOf, feedFolder, importLog4Shell, LOG4J } from '../../helpers/vulndb.js';

// Log4Shell's CVE in a second package: a product shipping both has one decision in two groups.
const LOG4J_API: Component = { name: 'log4j-api', version: '2.14.1', purl: 'pkg:maven/org.apache.logging.log4j/log4j-api@2.14.1' };
const ctx = operatorContext();
let t: ListeningApp;
type Counts = { kevAwarenessPending: number; kevAwarenessGroups: number };

before(async () => {
  t = await startListeningApp();
  await importLog4Shell(t.database.db);
  await refreshVulndb(
    t.database.db,
    feedFolder([
      {
        id: 'GHSA-test-log4j-api',
        aliases: ['CVE-2021-44228'],
        ecosystem: 'Maven',
        name: 'org.apache.logging.log4j:log4j-api',
        events: [{ introduced: '2.13.0' }, { fixed: '2.15.0' }],
      },
    ]),
  );
});
after(() => t.close());

const host = () => new URL(t.url).host;
async function tenantWith(products: [string, Component[]][]): Promise<{ tenant: Tenant; key: string }> {
  const tenant = await makeTenant(t.database.db);
  for (const [id, components] of products) {
    await upsertProduct(t.database.db, ctx, tenant.company.id, { name: `Gateway ${id}`, identifier: id });
    await pushSbom(t.database.db, ctx, tenant.company.id, id, cycloneDxOf(components));
  }
  return { tenant, key: (await makeKey(t.database.db, tenant, { scopes: ['read', 'triage:write'] })).key };
}
async function api(key: string, method: 'GET' | 'POST', url: string, payload?: unknown) {
  const headers = { host: host(), authorization: `Bearer ${key}`, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) };
  const res = await t.app.inject({ method, url: `/api/v1${url}`, headers, ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}) });
  return { status: res.statusCode, body: JSON.parse(res.body) as unknown };
}
const overview = async (key: string) => ((await api(key, 'GET', '/vulnerabilities/overview')).body as { counts: Counts }).counts;

describe('the overview counts the awareness decisions waiting', () => {
  it('over REST and MCP: decisions once each, groups by vulnerability and package, this company only; fewer once decided', async () => {
    const { key } = await tenantWith([
      ['gw-both', [LOG4J, LOG4J_API]],
      ['gw-core', [LOG4J]],
    ]);
    await tenantWith([['rival', [LOG4J]]]);
    const groups = (await api(key, 'GET', '/known-vulnerabilities/awareness/groups')).body as { packageKey: string; pending: number }[];
    assert.deepEqual(groups.map((g) => [g.packageKey, g.pending]).sort(), [
      ['maven/org.apache.logging.log4j/log4j-api', 1],
      ['maven/org.apache.logging.log4j/log4j-core', 2],
    ]);
    const counts = await overview(key);
    assert.deepEqual([counts.kevAwarenessPending, counts.kevAwarenessGroups], [2, 2]);
    const client = await connectModern(t, key);
    try {
      const viaMcp = await callTool(client, 'get_inbox_overview');
      assert.deepEqual((viaMcp.structuredContent as { counts: Counts }).counts, counts);
    } finally {
      await client.close();
    }

    const dismissed = await api(key, 'POST', '/known-vulnerabilities/awareness/bulk', {
      action: 'dismiss',
      group: { vulnerability: 'CVE-2021-44228', packageKey: 'maven/org.apache.logging.log4j/log4j-api' },
      reason: 'log4j-api alone is not affected',
    });
    assert.equal(dismissed.status, 200, JSON.stringify(dismissed.body));
    const left = await overview(key);
    assert.deepEqual([left.kevAwarenessPending, left.kevAwarenessGroups], [1, 1], 'gw-both decided: the core group keeps gw-core');
  });

  it('on the dashboard home, for every role, linking to the grouped form; nothing when none waits', async () => {
    const { tenant, key } = await tenantWith([
      ['gw-a', [LOG4J]],
      ['gw-b', [LOG4J]],
    ]);
    const viewer = await makeMember(t.database.db, tenant.company.id, tenant.admin.id, 'viewer');
    for (const email of [tenant.admin.email, viewer.email]) {
      const home = await dashboardClient(t, await signInCookie(t, email, undefined, host()), host()).page('/dashboard');
      assert.equal(home.statusCode, 200);
      assert.match(
        home.body,
        /<div class="notice warn" id="awareness-waiting"><a href="\/known-vulnerabilities#awareness-h"><strong>2<\/strong> known-vulnerability awareness decisions \(CISA KEV, CRA Article 14\) wait<\/a>, in 1 vulnerability and component group:/,
      );
    }
    const target = await dashboardClient(t, await signInCookie(t, tenant.admin.email, undefined, host()), host()).page('/known-vulnerabilities');
    assert.match(target.body, /<h2 id="awareness-h">Awareness decisions waiting/, 'the link lands on the grouped form');

    await api(key, 'POST', '/known-vulnerabilities/awareness/bulk', {
      action: 'dismiss',
      group: { vulnerability: 'CVE-2021-44228', packageKey: 'maven/org.apache.logging.log4j/log4j-core' },
      reason: 'not reachable',
    });
    const after = await dashboardClient(t, await signInCookie(t, tenant.admin.email, undefined, host()), host()).page('/dashboard');
    assert.doesNotMatch(after.body, /awareness-waiting/);
  });
});
