// The generated role suite (issue 20 "Done when"): every entry of the dashboard's access table,
// for each role, from one company with an administrator, a PSIRT member and a viewer who joined
// through invitations. A route the role may use is let through (a page answers 200); a route it
// may not is refused with 403 and changes nothing (every table compared before and after). Every
// form a page shows is one the role may send. The table equals the app's dashboard routes: a new
// route without an entry stops the server (guardRoutes), and every entry must be a real route.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { invitations, users } from '../../src/db/schema/index.js';
import { authorize, type Role } from '../../src/kernel/access.js';
import { DASHBOARD_ROUTES, routeNeed } from '../../src/web/dashboard/route-access.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';
import { dashboardFixtures, dashboardPath } from '../helpers/dashboard-fixtures.js';
import { makeMember } from '../helpers/team.js';

let t: TestApp;
let acme: Tenant;
const clients = {} as Record<Role, ReturnType<typeof dashboardClient>>;
const cookies = {} as Record<Role, string>;
/** Path parameters by route, resolving to real records of the company. */
const ids: Record<string, string> = {};

before(async () => {
  t = await createTestApp();
  const db = t.database.db;
  acme = await makeTenant(db);
  const psirt = await makeMember(db, acme.company.id, acme.admin.id, 'psirt');
  const viewer = await makeMember(db, acme.company.id, acme.admin.id, 'viewer');
  Object.assign(ids, await dashboardFixtures(db, acme));
  ids.member = psirt.id;
  for (const [role, email] of [
    ['admin', acme.admin.email],
    ['psirt', psirt.email],
    ['viewer', viewer.email],
  ] as const) {
    emails[role] = email;
    await signInAs(role);
  }
});

const emails = {} as Record<Role, string>;
async function signInAs(role: Role): Promise<void> {
  cookies[role] = await signInCookie(t, emails[role]);
  clients[role] = dashboardClient(t, cookies[role]);
}
after(() => t.close());

const pathOf = (route: string, real: boolean): string => dashboardPath(ids, route, real);

/** What a refused form sends: enough that the handler would change something if it ran. */
const BODIES: Record<string, Record<string, string>> = {
  'POST /products': { name: 'Sneaky', identifier: 'sneaky' },
  'POST /products/:identifier': { name: 'Renamed', category: 'default' },
  'POST /settings/api-keys': { name: 'sneaky key' },
  'POST /settings/webhooks': { url: 'https://hooks.example.com/sneaky' },
  'POST /settings/portal': { securityEmail: 'sneaky@example.test', languages: 'en', policyText: 'changed' },
  'POST /settings/team/invitations': { email: 'sneaky@example.test', role: 'admin' },
  'POST /settings/team/members/:id/role': { role: 'admin' },
  'POST /reports/:id/status': { status: 'triaged' },
  'POST /reports/:id/severity': { cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H' },
  'POST /reports/:id/messages': { body: 'sneaky message' },
  'POST /compliance/attestations': { requirementId: 'cra-ai-p2-7', verdict: 'met', justification: 'sneaky', allProducts: '1' },
  'POST /known-vulnerabilities/:id/decision': { state: 'not_affected', justification: 'code_not_reachable', detail: 'sneaky' },
  'POST /known-vulnerabilities/awareness/bulk': { action: 'dismiss', reason: 'sneaky' },
  'POST /settings/webhooks/:id/enabled': { enabled: 'false' },
  // Read when the test runs: the report exists only after the set-up.
  get 'POST /advisories'() {
    return { vulnerabilityId: ids.report ?? '' };
  },
  'POST /advisories/:id': { title: 'Sneaky title', 'product-rows': '0', 'ack-rows': '0' },
  'POST /advisories/:id/revise': { summary: 'sneaky' },
  'POST /advisories/:id/withdraw': { reason: 'sneaky' },
};

/** Every table but the session bookkeeping, as one digest per table: "nothing changed" is exact. */
let fingerprintQuery: string | undefined;
async function fingerprint(): Promise<Record<string, string>> {
  if (!fingerprintQuery) {
    const tables = (await t.database.db.execute(
      sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`,
    )) as unknown as { rows: { name: string }[] };
    const skip = new Set(['sessions', 'sign_in_failures', 'company_data_versions', 'company_data_pending', '__drizzle_migrations']);
    // One statement for all tables (a statement per table made this suite's slowest part).
    fingerprintQuery = tables.rows
      .filter((r) => !skip.has(r.name))
      .map(({ name }) => `select '${name}' as name, count(*)::int as n, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as d from "${name}" x`)
      .join(' union all ');
  }
  const r = (await t.database.db.execute(sql.raw(fingerprintQuery))) as unknown as { rows: { name: string; n: number; d: string }[] };
  return Object.fromEntries(r.rows.map((row) => [row.name, `${row.n}:${row.d}`]));
}

const ROUTES = DASHBOARD_ROUTES;
/** The route check's answer for a role of this (Enterprise) company: `authorize` with the route's need. */
const may = (role: Role, route: string): boolean => !authorize({ plan: acme.company.plan, role }, routeNeed(route) ?? { access: 'admin' });
/** Routes that end the caller's own sessions when let through: walked last, so the walk keeps its session. */
const ENDS_SESSION = new Set(['POST /account/sessions/end-all', 'POST /account/sessions/:id/end', 'POST /account/password']);
const WALK = [...ROUTES].sort((a, b) => Number(ENDS_SESSION.has(a)) - Number(ENDS_SESSION.has(b)));
const ROLES: Role[] = ['admin', 'psirt', 'viewer'];

describe('the access table', () => {
  it('names only routes the app has (and the server refuses to start with a route it lacks)', () => {
    for (const route of ROUTES) {
      const [method = '', url = ''] = route.split(' ');
      assert.ok(
        t.app.hasRoute({ method: method as 'GET', url, constraints: { zone: 'site' } }),
        `${route} is in the dashboard's access tables but not registered`,
      );
    }
    assert.ok(ROUTES.length >= 54, `expected every dashboard route, found ${ROUTES.length}`);
  });
});

for (const role of ROLES) {
  describe(`dashboard as ${role}`, () => {
    for (const route of WALK) {
      const [method] = route.split(' ');
      it(`lets through or refuses ${route} as authorize answers`, async () => {
        const allowed = may(role, route);
        const c = clients[role];
        if (method === 'GET') {
          const res = await c.page(pathOf(route, true));
          if (!allowed) return assert.equal(res.statusCode, 403, res.body.slice(0, 200));
          assert.equal(res.statusCode, 200, `${route}: ${res.body.slice(0, 300)}`);
          // Every form the page shows is one this role may send.
          for (const [, action = ''] of res.body.matchAll(/<form method="post" action="([^"]+)"/g)) {
            if (action === '/logout') continue;
            const target = ROUTES.find(
              (r) => r.startsWith('POST ') && new RegExp(`^${r.slice(5).replace(/:[a-zA-Z]+/g, '[^/]+')}$`).test(action.split('?')[0] ?? ''),
            );
            assert.ok(target, `${route} shows a form to ${action}, which is no dashboard route`);
            assert.ok(may(role, target), `${route} shows ${role} a form to ${action} (${target})`);
          }
          return;
        }
        if (allowed) {
          const res = await c.form(pathOf(route, false), {});
          assert.notEqual(res.statusCode, 403, `${route}: ${res.body.slice(0, 300)}`);
          assert.ok(res.statusCode < 500, `${route}: ${res.statusCode}`);
          // The suites below use this role's session again.
          if (ENDS_SESSION.has(route)) await signInAs(role);
          return;
        }
        const before = await fingerprint();
        const res = await c.form(pathOf(route, true), BODIES[route] ?? {});
        assert.equal(res.statusCode, 403, `${route}: ${res.body.slice(0, 300)}`);
        assert.match(res.body, /does not allow this/);
        assert.deepEqual(await fingerprint(), before, `${route} changed data for ${role}`);
      });
    }
  });
}

describe('what each role is refused, in so many words', () => {
  it('a viewer with a valid CSRF token changes nothing: not a product, not a report, not the team', async () => {
    const before = await fingerprint();
    const tries = [
      await clients.viewer.form('/products', { name: 'Viewer product', identifier: 'viewer-product' }),
      await clients.viewer.form(`/reports/${ids.report}/messages`, { body: 'a viewer writes' }),
      await clients.viewer.form('/settings/team/invitations', { email: 'friend@example.test', role: 'admin' }),
      await clients.viewer.form(`/settings/team/members/${ids.member}/remove`, {}),
    ];
    assert.deepEqual(
      tries.map((r) => r.statusCode),
      [403, 403, 403, 403],
    );
    assert.deepEqual(await fingerprint(), before);
    assert.equal((await t.database.db.select().from(invitations).where(eq(invitations.email, 'friend@example.test'))).length, 0);
    assert.equal(
      (
        await t.database.db
          .select()
          .from(users)
          .where(eq(users.id, ids.member ?? ''))
      ).length,
      1,
    );
  });

  it('a PSIRT member cannot open keys, team, portal settings, webhooks or the audit log, and the navigation does not offer them', async () => {
    for (const path of ['/settings/api-keys', '/settings/team', '/settings/portal', '/settings/webhooks', '/audit']) {
      assert.equal((await clients.psirt.page(path)).statusCode, 403, path);
    }
    const nav = /<nav aria-label="Dashboard">(.*?)<\/nav>/s.exec((await clients.psirt.page('/dashboard')).body)?.[1] ?? '';
    assert.deepEqual(
      [...nav.matchAll(/href="([^"]+)"/g)].map((m) => m[1]).filter((h) => h?.startsWith('/settings/') || h === '/audit'),
      ['/settings/notifications'],
    );
  });
});

describe('session key endpoints per role', () => {
  const json = (role: Role, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { host: SITE, cookie: cookies[role], ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });

  it('lets administrators manage keys, viewers only list them, and refuses PSIRT members everything', async () => {
    assert.equal((await json('admin', 'GET', '/api/settings/api-keys')).statusCode, 200);
    const viewerList = await json('viewer', 'GET', '/api/settings/api-keys');
    assert.equal(viewerList.statusCode, 200);
    assert.ok(viewerList.json<{ id: string }[]>().some((k) => k.id === ids.key));
    assert.equal((await json('psirt', 'GET', '/api/settings/api-keys')).statusCode, 403);
    const before = await fingerprint();
    for (const role of ['psirt', 'viewer'] as const) {
      const refused = [
        await json(role, 'POST', '/api/settings/api-keys', { name: 'sneaky' }),
        await json(role, 'POST', `/api/settings/api-keys/${ids.key}/rotate`, {}),
        await json(role, 'DELETE', `/api/settings/api-keys/${ids.key}`),
      ];
      assert.deepEqual(
        refused.map((r) => r.statusCode),
        [403, 403, 403],
        role,
      );
      assert.equal(refused[0]?.headers['content-type'], 'application/problem+json; charset=utf-8');
    }
    assert.deepEqual(await fingerprint(), before);
    const created = await json('admin', 'POST', '/api/settings/api-keys', { name: 'admin key' });
    assert.equal(created.statusCode, 201);
  });
});
