import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

/**
 * Issue 11 "Tenant isolation", property-based: random interleavings of two companies' writes and
 * reads through the REST API. Every record a company creates carries its own marker; whatever the
 * order, a company's answers never contain the other's marker, its lists and exports count exactly
 * its own records, and the other company's ids are not found.
 */
const RUNS = Number(process.env.TENANCY_RUNS ?? 15);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

type Side = 'a' | 'b';
type Action =
  | { side: Side; kind: 'product'; n: number }
  | { side: Side; kind: 'report'; n: number }
  | { side: Side; kind: 'webhook'; n: number }
  | { side: Side; kind: 'read'; what: 'products' | 'export' | 'webhooks' }
  | { side: Side; kind: 'peek'; at: number };

let t: TestApp;
const tenants: Record<Side, Tenant> = {} as Record<Side, Tenant>;
const keys: Record<Side, string> = { a: '', b: '' };

before(async () => {
  t = await createTestApp({ API_RATE_LIMIT: '10000000' });
  for (const side of ['a', 'b'] as const) {
    tenants[side] = await makeTenant(t.database.db);
    keys[side] = (await makeKey(t.database.db, tenants[side])).key;
  }
});
after(() => t.close());

const side = fc.constantFrom<Side>('a', 'b');
const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ side, kind: fc.constant('product' as const), n: fc.nat(1_000_000) }),
  fc.record({ side, kind: fc.constant('report' as const), n: fc.nat(1_000_000) }),
  fc.record({ side, kind: fc.constant('webhook' as const), n: fc.nat(1_000_000) }),
  fc.record({ side, kind: fc.constant('read' as const), what: fc.constantFrom('products' as const, 'export' as const, 'webhooks' as const) }),
  fc.record({ side, kind: fc.constant('peek' as const), at: fc.nat(50) }),
);

describe('two companies acting in random interleavings', () => {
  it("never see, count or reach each other's records", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 25 }), async (actions) => {
        round++;
        // Markers unique to this run, so earlier runs' records cannot confuse the counts.
        const marker = (s: Side) => `tenant-${s}-run${round}-${tenants[s].company.slug}`;
        const other = (s: Side): Side => (s === 'a' ? 'b' : 'a');
        const created: Record<Side, { products: number; reports: string[]; webhooks: number }> = {
          a: { products: 0, reports: [], webhooks: 0 },
          b: { products: 0, reports: [], webhooks: 0 },
        };
        const call = (s: Side, method: 'GET' | 'POST', url: string, body?: unknown) =>
          t.app.inject({
            method,
            url,
            headers: { ...bearer(keys[s]), ...(body ? { 'content-type': 'application/json' } : {}) },
            ...(body ? { payload: JSON.stringify(body) } : {}),
          });
        const seesNoOther = (s: Side, body: string, what: string) =>
          assert.ok(!body.includes(`tenant-${other(s)}-run`), `${s} saw ${other(s)}'s data in ${what}`);

        for (const a of actions) {
          const s = a.side;
          if (a.kind === 'product') {
            const res = await call(s, 'POST', '/api/v1/products', { name: `${marker(s)} product`, identifier: `${marker(s)}-${a.n}` });
            assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
            if (res.statusCode === 201) created[s].products++;
          } else if (a.kind === 'report') {
            const res = await call(s, 'POST', '/api/v1/vulnerabilities', { description: `${marker(s)} report ${a.n}`, vulnerabilityType: 'other' });
            assert.equal(res.statusCode, 201, res.body);
            created[s].reports.push(res.json().submissionId);
            seesNoOther(s, res.body, 'a filing answer');
          } else if (a.kind === 'webhook') {
            const res = await call(s, 'POST', '/api/v1/webhooks/register', { url: `https://${marker(s)}.example.com/${a.n}` });
            assert.equal(res.statusCode, 201, res.body);
            created[s].webhooks++;
          } else if (a.kind === 'read') {
            const url = a.what === 'products' ? '/api/v1/products' : a.what === 'webhooks' ? '/api/v1/webhooks' : '/api/v1/vulnerabilities/export?limit=100';
            const res = await call(s, 'GET', url);
            assert.equal(res.statusCode, 200, res.body);
            seesNoOther(s, res.body, url);
          } else {
            // Reaching for one of the other company's reports by id: not found, and nothing leaks.
            const theirs = created[other(s)].reports;
            if (theirs.length === 0) continue;
            const id = theirs[a.at % theirs.length] as string;
            for (const url of [`/api/v1/vulnerabilities/${id}`, `/api/v1/vulnerabilities/${id}/article14`]) {
              const res = await call(s, 'GET', url);
              assert.equal(res.statusCode, 404, `${s} reached ${other(s)}'s report via ${url}: ${res.body}`);
              seesNoOther(s, res.body, url);
            }
          }
        }
        // Totals: each company's lists hold exactly what it created in this run.
        for (const s of ['a', 'b'] as const) {
          const products = (await call(s, 'GET', '/api/v1/products')).json() as { name: string }[] | { products: { name: string }[] };
          const list = Array.isArray(products) ? products : products.products;
          assert.equal(list.filter((p) => p.name.startsWith(marker(s))).length, created[s].products);
          const hooks = (await call(s, 'GET', '/api/v1/webhooks')).json() as { url: string }[] | { webhooks: { url: string }[] };
          const hookList = Array.isArray(hooks) ? hooks : hooks.webhooks;
          assert.equal(hookList.filter((h) => h.url.includes(marker(s))).length, created[s].webhooks);
          const exported = (await call(s, 'GET', '/api/v1/vulnerabilities/export?limit=100')).json() as {
            reports: { submissionId: string; description: string }[];
          };
          const mine = exported.reports
            .filter((r) => r.description.startsWith(marker(s)))
            .map((r) => r.submissionId)
            .sort();
          // A run files at most 25 reports, all newer than earlier runs': the first page holds them all.
          assert.deepEqual(mine, [...created[s].reports].sort());
        }
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  });
});
