// One authorisation answer through every transport (issue 38), generated from the operation list:
// for every operation, plan and caller, the answer REST, the MCP tool and the dashboard route give
// is the one `authorize` gives for the operation's need (`operationNeed`). A key holding only `read`
// and a key holding every other scope stand for the scope answer; an administrator, a PSIRT member
// and a viewer for the role answer; a company on each plan for the plan answer. One app, one
// company per plan, every path id unknown: a let-through call ends in 400/404 before it changes
// anything of note, a refused one must be refused before the verb runs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { API_OPERATIONS } from '../../src/http/api-operations.js';
import { authorize, type Caller, PLANS, type Plan, type Refusal, type Role, ROLES, SCOPES } from '../../src/kernel/access.js';
import { operatorContext } from '../../src/kernel/context.js';
import { MCP_PATH } from '../../src/mcp/mcp-routes.js';
import { updateCompany } from '../../src/modules/companies/update-company.js';
import { type Operation, operationNeed } from '../../src/modules/operations/operation.js';
import { DASHBOARD_ROUTES, ROUTE_OPERATIONS, ROUTES_WITHOUT_OPERATION } from '../../src/web/dashboard/route-access.js';
import { bearer, makeKey, makeTenant, signInCookie } from '../helpers/access.js';
import { createTestApp, SITE, type TestApp } from '../helpers/app.js';
import { csrfOf, dashboardClient } from '../helpers/dashboard.js';
import { makeMember } from '../helpers/team.js';

const KEYS = { read: ['read'], writes: SCOPES.filter((s) => s !== 'read') } as const;
type KeyKind = keyof typeof KEYS;
type Member = { cookie: string; csrf: string };
type Company = { keys: Record<KeyKind, string>; members: Record<Role, Member> };

/** A signed-in member, with the CSRF token of its session (read once). */
async function member(email: string): Promise<Member> {
  const cookie = await signInCookie(t, email);
  return { cookie, csrf: csrfOf((await dashboardClient(t, cookie).page('/settings/notifications')).body) };
}

let t: TestApp;
const companies = {} as Record<Plan, Company>;

before(async () => {
  t = await createTestApp({ API_RATE_LIMIT: '1000000' });
  const db = t.database.db;
  for (const plan of PLANS) {
    // Keys are issued on Enterprise (the only plan that may), then the company moves to its plan.
    const tenant = await makeTenant(db);
    const keys = {} as Record<KeyKind, string>;
    for (const kind of Object.keys(KEYS) as KeyKind[]) keys[kind] = (await makeKey(db, tenant, { scopes: [...KEYS[kind]] })).key;
    const members = { admin: await member(tenant.admin.email) } as Company['members'];
    for (const role of ['psirt', 'viewer'] as const) {
      const m = await makeMember(db, tenant.company.id, tenant.admin.id, role);
      members[role] = await member(m.email);
    }
    if (plan !== 'enterprise') await updateCompany(db, operatorContext(), tenant.company.slug, { plan });
    companies[plan] = { keys, members };
  }
});
after(() => t.close());

/** A path with every parameter an id the company does not have (a filing stage stays a real stage). */
const unknownPath = (path: string): string => path.replace(/:([a-zA-Z]+)/g, (_, name: string) => (name === 'stage' ? 'early-warning' : randomUUID()));

type Answer = 'plan' | 'scope' | 'role' | 'allowed';
const expected = (caller: Caller, op: Operation): Answer => (authorize(caller, operationNeed(op)) as Refusal | undefined)?.reason ?? 'allowed';

async function rest(op: Operation, key: string): Promise<Answer> {
  const body = op.method === 'GET' || op.method === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, payload: '{}' };
  const res = await t.app.inject({ method: op.method, url: `/api/v1${unknownPath(op.path)}`, ...body, headers: { ...bearer(key), ...body.headers } });
  if (res.statusCode === 401) return 'plan';
  if (res.statusCode === 403) {
    assert.match(res.json<{ detail: string }>().detail, new RegExp(op.scope), `${op.name}: the 403 names the scope`);
    return 'scope';
  }
  return 'allowed';
}

async function mcp(op: Operation, key: string): Promise<Answer> {
  const args = Object.fromEntries([...op.path.matchAll(/:([a-zA-Z]+)/g)].map(([, name = '']) => [name, name === 'stage' ? 'early-warning' : randomUUID()]));
  const res = await t.app.inject({
    method: 'POST',
    url: MCP_PATH,
    headers: { ...bearer(key), 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: op.mcpTool, arguments: args } }),
  });
  // Below the lowest plan of any tool the endpoint itself refuses, as REST does.
  if (res.statusCode === 401) return 'plan';
  const data = res.body.startsWith('{') ? res.body : (/^data: (.*)$/m.exec(res.body)?.[1] ?? '{}');
  const answer = JSON.parse(data) as { error?: { message: string }; result?: { isError?: boolean; content?: { text?: string }[] } };
  const text = answer.error?.message ?? answer.result?.content?.map((c) => c.text ?? '').join(' ') ?? '';
  // A tool the key's plan does not reach is not registered for it.
  if (/not found/i.test(text) && new RegExp(op.mcpTool ?? '').test(text)) return 'plan';
  if (answer.result?.isError && text.includes('scope') && text.includes(op.scope)) return 'scope';
  return 'allowed';
}

async function dashboard(route: string, m: Member): Promise<Answer> {
  const [method = '', path = ''] = route.split(' ');
  const form = method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: `_csrf=${m.csrf}` } : { headers: {} };
  const res = await t.app.inject({ method: method as 'GET', url: unknownPath(path), ...form, headers: { host: SITE, cookie: m.cookie, ...form.headers } });
  if (res.statusCode !== 403) return 'allowed';
  return /plan upward/.test(res.body) ? 'plan' : 'role';
}

const routesOf = (op: Operation): string[] => Object.keys(ROUTE_OPERATIONS).filter((r) => ROUTE_OPERATIONS[r] === op.name);

describe('one authorisation answer through REST, MCP and the dashboard', () => {
  it('maps every dashboard route to an operation, but for the actions the API has no operation for', () => {
    assert.deepEqual(Object.keys(ROUTES_WITHOUT_OPERATION).sort(), [
      'GET /account',
      'GET /account/second-factor',
      'GET /audit',
      'GET /dashboard',
      'GET /evidence',
      'GET /reports',
      'GET /settings/api-keys',
      'GET /settings/notifications',
      'GET /settings/team',
      'POST /account/password',
      'POST /account/second-factor/confirm',
      'POST /account/second-factor/disable',
      'POST /account/second-factor/recovery-codes',
      'POST /account/second-factor/start',
      'POST /account/security-policy',
      'POST /account/sessions/:id/end',
      'POST /account/sessions/end-all',
      'POST /settings/api-keys',
      'POST /settings/api-keys/:id/revoke',
      'POST /settings/api-keys/:id/rotate',
      'POST /settings/notifications',
      'POST /settings/team/invitations',
      'POST /settings/team/invitations/:id/resend',
      'POST /settings/team/invitations/:id/revoke',
      'POST /settings/team/members/:id/remove',
      'POST /settings/team/members/:id/role',
    ]);
    const names = new Set(API_OPERATIONS.map((o) => o.name));
    for (const [route, name] of Object.entries(ROUTE_OPERATIONS)) assert.ok(names.has(name), `${route} names ${name}`);
    assert.equal(DASHBOARD_ROUTES.length, Object.keys(ROUTE_OPERATIONS).length + Object.keys(ROUTES_WITHOUT_OPERATION).length);
  });

  for (const op of API_OPERATIONS) {
    it(`${op.name}: every plan, key and role as authorize answers`, async () => {
      // Sent together: the key-use audit rows of concurrent calls share one group commit.
      const cases: { label: string; want: Answer; ask: () => Promise<Answer> }[] = [];
      for (const plan of PLANS) {
        const c = companies[plan];
        for (const kind of Object.keys(KEYS) as KeyKind[]) {
          const want = expected({ plan, scopes: KEYS[kind] }, op);
          cases.push({ label: `${plan} ${kind} key REST`, want, ask: () => rest(op, c.keys[kind]) });
          if (op.mcpTool) cases.push({ label: `${plan} ${kind} key MCP`, want, ask: () => mcp(op, c.keys[kind]) });
        }
        for (const route of routesOf(op)) {
          for (const role of ROLES) {
            cases.push({ label: `${plan} ${role} ${route}`, want: expected({ plan, role }, op), ask: () => dashboard(route, c.members[role]) });
          }
        }
      }
      const seen = await Promise.all(cases.map(async (x) => `${x.label} ${await x.ask()}`));
      const want = cases.map((x) => `${x.label} ${x.want}`);
      assert.deepEqual(seen, want);
    });
  }
});
