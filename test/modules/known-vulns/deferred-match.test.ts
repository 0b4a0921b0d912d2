// Matching after the answer (issue 33, docs/evidence.md "Matching after the answer"): a large SBOM's
// push answers `matching: "pending"`, the `known-vulns.match` job records the same matches an inline
// push would, announces `sbom.matched`, and a queued match survives a restart and a dead worker.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { and, eq, sql } from 'drizzle-orm';
import { type Database, openDatabase } from '../../../src/db/client.js';
import { outboxEvents } from '../../../src/db/schema/index.js';
import { selectRows } from '../../../src/db/sql-rows.js';
import { asSystem } from '../../../src/db/tenant-scope.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { listKnownVulns } from '../../../src/modules/known-vulns/list-known-vulns.js';
import { refreshVulndb } from '../../../src/modules/known-vulns/refresh-vulndb.js';
import { claimSbomMatches } from '../../../src/modules/known-vulns/sbom-match-jobs.js';
import { runSbomMatchCycle, SBOM_MATCH_LEASE_MS, startSbomMatchWorker } from '../../../src/modules/known-vulns/sbom-match-worker.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { getSbom } from '../../../src/modules/sboms/get-sbom.js';
import { pushSbom } from '../../../src/modules/sboms/push-sbom.js';
import { createTestDatabase, openMigratedDataDir, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';
import { cycloneDxOf, feedFolder, type TestRecord } from '../../helpers/vulndb.js';

const ctx = operatorContext();
const RECORDS: TestRecord[] = [
  { id: 'GHSA-p6mc-m468-83gw', aliases: ['CVE-2020-8203'], ecosystem: 'npm', name: 'lodash', events: [{ introduced: '3.7.0' }, { fixed: '4.17.19' }] },
  { id: 'GHSA-vh95-rmgr-6w4m', aliases: ['CVE-2020-7598'], ecosystem: 'npm', name: 'minimist', events: [{ introduced: '1.0.0' }, { fixed: '1.2.3' }] },
];
const OLD = cycloneDxOf([
  { name: 'lodash', version: '4.17.15', purl: 'pkg:npm/lodash@4.17.15' },
  { name: 'minimist', version: '1.2.0', purl: 'pkg:npm/minimist@1.2.0' },
  { name: 'ms', version: '2.1.3', purl: 'pkg:npm/ms@2.1.3' },
]);
const FIXED = cycloneDxOf([
  { name: 'lodash', version: '4.17.21', purl: 'pkg:npm/lodash@4.17.21' },
  { name: 'minimist', version: '1.2.0', purl: 'pkg:npm/minimist@1.2.0' },
]);
// Every push of this file over 0 components defers its match, as one over 1,000 does by default.
const DEFER = { matchInlineUpTo: 0 };

async function matchesOf(db: Database['db'], companyId: string) {
  const page = await listKnownVulns(db, companyId, { state: 'all' }, { limit: 100 });
  return page.items.map((m) => `${m.vulnerability} ${m.component.name}@${m.component.version} ${m.resolvedAt ? 'resolved' : 'open'}`).sort();
}
async function eventsOf(db: Database['db'], companyId: string, type: string) {
  const rows = await db
    .select({ payload: outboxEvents.payload })
    .from(outboxEvents)
    .where(and(eq(outboxEvents.companyId, companyId), eq(outboxEvents.type, type)));
  return rows.map((r) => (r.payload as { data: Record<string, unknown> }).data);
}
const queued = async (db: Database['db']) => (await selectRows<{ n: number }>(db, sql`select count(*)::int as n from sbom_match_jobs`))[0]!.n;
const drain = async (db: Database['db']) => {
  while ((await asSystem(() => runSbomMatchCycle(db))) > 0);
};

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
  await refreshVulndb(d.db, feedFolder(RECORDS));
});
after(() => d.drop());

describe('known-vulnerability matching after the push answers', () => {
  it('answers pending, then records what an inline push records and announces sbom.matched', async () => {
    const inline = await makeCompany(d.db);
    await upsertProduct(d.db, ctx, inline.id, { name: 'gw', identifier: 'gw' });
    const now = await pushSbom(d.db, ctx, inline.id, 'gw', OLD);
    assert.equal(now.matching, 'done');

    const c = await makeCompany(d.db);
    await upsertProduct(d.db, ctx, c.id, { name: 'gw', identifier: 'gw' });
    const pushed = await pushSbom(d.db, ctx, c.id, 'gw', OLD, DEFER);
    assert.equal(pushed.matching, 'pending');
    assert.equal((await getSbom(d.db, c.id, pushed.id)).matching, 'pending');
    assert.deepEqual(await matchesOf(d.db, c.id), []);
    assert.deepEqual(
      (await eventsOf(d.db, c.id, 'sbom.ingested')).map((e) => e.matching),
      ['pending'],
    );

    await drain(d.db);
    const expected = ['CVE-2020-7598 minimist@1.2.0 open', 'CVE-2020-8203 lodash@4.17.15 open'];
    assert.deepEqual(await matchesOf(d.db, c.id), expected);
    assert.deepEqual(await matchesOf(d.db, inline.id), expected);
    assert.equal((await getSbom(d.db, c.id, pushed.id)).matching, 'done');
    assert.deepEqual(await eventsOf(d.db, c.id, 'sbom.matched'), [
      { sbomId: pushed.id, productIdentifier: 'gw', version: 1, outcome: 'matched', components: 3, matchable: 3, opened: 2, kept: 0, resolved: 0 },
    ]);
    assert.equal((await eventsOf(d.db, c.id, 'vulnerability.matched'))[0]?.total, 2);
    // The inline push announced no sbom.matched: its answer said done.
    assert.deepEqual(await eventsOf(d.db, inline.id, 'sbom.matched'), []);
  });

  it('a version superseded before its match is not matched; the newer one is', async () => {
    const c = await makeCompany(d.db);
    await upsertProduct(d.db, ctx, c.id, { name: 'gw', identifier: 'gw' });
    const first = await pushSbom(d.db, ctx, c.id, 'gw', OLD, DEFER);
    const second = await pushSbom(d.db, ctx, c.id, 'gw', FIXED, DEFER);
    await drain(d.db);
    assert.deepEqual(await matchesOf(d.db, c.id), ['CVE-2020-7598 minimist@1.2.0 open']);
    const events = await eventsOf(d.db, c.id, 'sbom.matched');
    assert.deepEqual(
      events.map((e) => [e.sbomId, e.outcome]),
      [
        [first.id, 'superseded'],
        [second.id, 'matched'],
      ],
    );
  });

  it('a match claimed by a worker that died is taken over once its lease lapses', async () => {
    const c = await makeCompany(d.db);
    await upsertProduct(d.db, ctx, c.id, { name: 'gw', identifier: 'gw' });
    await pushSbom(d.db, ctx, c.id, 'gw', OLD, DEFER);
    const t = new Date();
    const [dead] = await asSystem(() => claimSbomMatches(d.db, t, { batch: 10, leaseMs: SBOM_MATCH_LEASE_MS }));
    assert.equal(dead?.companyId, c.id);
    // Within the lease nobody else takes it; after it, the next pass does.
    assert.equal(await asSystem(() => runSbomMatchCycle(d.db, {}, new Date(t.getTime() + 1000))), 0);
    assert.equal(await asSystem(() => runSbomMatchCycle(d.db, {}, new Date(t.getTime() + SBOM_MATCH_LEASE_MS + 1000))), 1);
    assert.equal((await eventsOf(d.db, c.id, 'sbom.matched'))[0]?.opened, 2);
    assert.equal(await queued(d.db), 0);
  });

  it('the job is woken by the push and matches without polling', async () => {
    const worker = startSbomMatchWorker(d.db, { listen: d.listen, pollMs: 3_600_000 });
    try {
      const c = await makeCompany(d.db);
      await upsertProduct(d.db, ctx, c.id, { name: 'gw', identifier: 'gw' });
      // The worker's first pass (at start) finds nothing queued; only the wake-up can run this one.
      await new Promise((r) => setTimeout(r, 100));
      const pushed = await pushSbom(d.db, ctx, c.id, 'gw', OLD, DEFER);
      let events: Record<string, unknown>[] = [];
      for (let i = 0; i < 500 && events.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
        events = await eventsOf(d.db, c.id, 'sbom.matched');
      }
      assert.deepEqual(
        events.map((e) => [e.sbomId, e.outcome]),
        [[pushed.id, 'matched']],
      );
    } finally {
      await worker.stop();
    }
  });
});

describe('a queued match survives a restart', () => {
  it('is found and run by the next process on the same database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cradle-deferred-'));
    const open = (): Promise<Database> =>
      d.url ? openDatabase({ databaseUrl: d.url, poolSize: 2 }) : openDatabase({ dataDir: dir }).then(async (x) => (await x.migrate(), x));
    try {
      let first: Database = d.url ? await open() : await openMigratedDataDir(dir);
      if (!d.url) await refreshVulndb(first.db, feedFolder(RECORDS));
      const c = await makeCompany(first.db);
      await upsertProduct(first.db, ctx, c.id, { name: 'gw', identifier: 'gw' });
      const pushed = await pushSbom(first.db, ctx, c.id, 'gw', OLD, DEFER);
      await first.close();

      first = await open();
      try {
        assert.equal((await getSbom(first.db, c.id, pushed.id)).matching, 'pending');
        await drain(first.db);
        assert.deepEqual(await matchesOf(first.db, c.id), ['CVE-2020-7598 minimist@1.2.0 open', 'CVE-2020-8203 lodash@4.17.15 open']);
        assert.equal((await getSbom(first.db, c.id, pushed.id)).matching, 'done');
      } finally {
        await first.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
