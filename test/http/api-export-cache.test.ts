import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { and, eq, sql } from 'drizzle-orm';
import { auditLog } from '../../src/db/schema/index.js';
import { operatorContext } from '../../src/kernel/context.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { exportPageCacheStats as stats, exportReports } from '../../src/modules/reports/export-reports.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { pushSarif } from '../../src/modules/findings/push-sarif.js';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/access.js';
import { createTestApp, type SecondInstance, startSecondInstance, type TestApp } from '../helpers/app.js';
import { sarif } from '../helpers/evidence.js';

/**
 * `GET /vulnerabilities/export` answers from each instance's company read cache on the `reports`
 * version domain (docs/adr/0021-report-export-cache.md): byte for byte what the uncached verb gives,
 * the same bytes after a write to anything but reports, new bytes after a report changes (through
 * the verb, by hand in SQL, or through another instance), every use audited as before.
 */
let a: TestApp;
let second: SecondInstance;
let b: FastifyInstance;
let acme: Tenant;
let other: Tenant;
let key: string;
let otherKey: string;
const ctx = operatorContext();

before(async () => {
  a = await createTestApp();
  second = await startSecondInstance(a);
  b = second.app;
  acme = await makeTenant(a.database.db);
  other = await makeTenant(a.database.db);
  key = (await makeKey(a.database.db, acme, { scopes: ['read'] })).key;
  otherKey = (await makeKey(a.database.db, other, { scopes: ['read'] })).key;
  await upsertProduct(a.database.db, ctx, acme.company.id, { name: 'Hub', identifier: 'hub' });
  for (let i = 0; i < 3; i++) await file(acme, `Acme report ${i}: heap overflow in the hub's parser.`);
  await file(other, 'Other report: the only one of the other company.');
});
after(async () => {
  await second.close();
  await a.close();
});

async function file(t: Tenant, description: string) {
  return (await fileReport(a.database.db, ctx, t.company, { description, productName: 'Hub' }, 'api')).report;
}

const exported = (app: FastifyInstance, query = '', k = key) => app.inject({ url: `/api/v1/vulnerabilities/export${query}`, headers: bearer(k) });

/** The JSON text the uncached verb gives for the same query, as the route sent it before the cache. */
const direct = async (query: Record<string, string> = {}, t = acme) => JSON.stringify(await exportReports(a.database.db, t.company.id, query));

/** Asks twice; both answers are the database's page, the second from memory. Returns the body. */
async function assertCachedAndCurrent(query = '', expected = direct()): Promise<string> {
  const first = await exported(a.app, query);
  assert.equal(first.statusCode, 200);
  assert.equal(first.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal(first.body, await expected);
  const hits = stats.hits;
  const again = await exported(a.app, query);
  assert.equal(again.body, first.body);
  assert.equal(stats.hits, hits + 1, 'the unchanged page came from memory');
  return first.body;
}

describe('GET /vulnerabilities/export from the company read cache', () => {
  it('answers the bytes the uncached verb gives, page by page, and another company its own reports only', async () => {
    const whole = await assertCachedAndCurrent();
    assert.equal(JSON.parse(whole).reports.length, 3);
    const first = await assertCachedAndCurrent('?limit=2', direct({ limit: '2' }));
    const cursor = JSON.parse(first).nextCursor as string;
    assert.ok(cursor, 'a second page exists');
    const rest = await assertCachedAndCurrent(`?limit=2&cursor=${cursor}`, direct({ limit: '2', cursor }));
    assert.deepEqual(
      JSON.parse(rest).reports.map((r: { description: string }) => r.description),
      ["Acme report 0: heap overflow in the hub's parser."],
    );
    const theirs = await exported(a.app, '', otherKey);
    assert.equal(theirs.body, await direct({}, other));
    assert.deepEqual(
      theirs.json().reports.map((r: { description: string }) => r.description),
      ['Other report: the only one of the other company.'],
    );
  });

  it('keeps the same bytes from memory after writes that touch no report: a product, a SARIF push, another company', async () => {
    const body = await assertCachedAndCurrent();
    await upsertProduct(a.database.db, ctx, acme.company.id, { name: 'Camera', identifier: 'cam' });
    await pushSarif(a.database.db, ctx, acme.company.id, 'hub', sarif('Semgrep', [{ rule: 'x', file: 'a.c', line: 1, level: 'error' }]));
    await file(other, 'Other report 2: does not concern acme.');
    const hits = stats.hits;
    const misses = stats.misses;
    assert.equal((await exported(a.app)).body, body);
    assert.deepEqual([stats.hits, stats.misses], [hits + 1, misses]);
  });

  it('answers new bytes after a report is filed, changed by hand in SQL, or changed through another instance', async () => {
    const before = await assertCachedAndCurrent();
    await file(acme, 'Acme report 3: filed after the page was kept.');
    const filed = await assertCachedAndCurrent();
    assert.notEqual(filed, before);
    assert.equal(JSON.parse(filed).reports[0].description, 'Acme report 3: filed after the page was kept.');

    await a.database.ddl(`update reports set severity = 'critical' where company_id = '${acme.company.id}'`);
    const bySql = await assertCachedAndCurrent();
    assert.ok(JSON.parse(bySql).reports.every((r: { severity: string }) => r.severity === 'critical'));

    const id = JSON.parse(bySql).reports[0].submissionId as string;
    const triage = (await makeKey(a.database.db, acme, { scopes: ['read', 'triage:write'] })).key;
    const patched = await b.inject({
      method: 'PATCH',
      url: `/api/v1/vulnerabilities/${id}`,
      headers: { ...bearer(triage), 'content-type': 'application/json' },
      payload: { status: 'triaging' },
    });
    assert.equal(patched.statusCode, 200);
    const seen = await assertCachedAndCurrent();
    assert.equal(JSON.parse(seen).reports[0].status, 'triaging');
  });

  it('still refuses a cursor it did not issue, and keeps nothing for it', async () => {
    const misses = stats.misses;
    const res = await exported(a.app, '?cursor=bm90LWEtY3Vyc29y');
    assert.equal(res.statusCode, 400);
    assert.match(res.json().detail, /cursor: not a cursor this API issued/);
    assert.equal(stats.misses, misses);
  });

  it('records every use in the audit log, answered from memory or not', async () => {
    const rows = () =>
      a.database.db
        .select({ n: sql<number>`count(*)::int` })
        .from(auditLog)
        .where(
          and(
            eq(auditLog.companyId, acme.company.id),
            eq(auditLog.action, 'api.request'),
            sql`${auditLog.details}->>'path' = '/api/v1/vulnerabilities/export'`,
            sql`(${auditLog.details}->>'status')::int = 200`,
          ),
        );
    const [before] = await rows();
    await assertCachedAndCurrent();
    for (let i = 0; i < 3; i++) assert.equal((await exported(a.app)).statusCode, 200);
    const [after] = await rows();
    assert.equal(Number(after?.n) - Number(before?.n), 5);
  });
});
