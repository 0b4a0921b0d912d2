import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, count, eq } from 'drizzle-orm';
import { findings, findingTransitions, sarifScans, sarifStages } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { newId } from '../../../src/kernel/ids.js';
import { countOpenFindings } from '../../../src/modules/findings/count-findings.js';
import { listFindings } from '../../../src/modules/findings/list-findings.js';
import { pushSarif } from '../../../src/modules/findings/push-sarif.js';
import { readSarif } from '../../../src/modules/findings/findings.read.js';
import { claimProduct, STAGE_CHUNK_ROWS, STALE_CLAIM_MS } from '../../../src/modules/findings/findings.stage.js';
import { insertFindings } from '../../../src/modules/findings/findings.store.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { type Res, sarif } from '../../helpers/evidence.js';
import { makeCompany } from '../../helpers/factories.js';

// ADR 0025: a SARIF push writes its findings and transitions ahead of the transaction that
// stores its scan (src/modules/findings/findings.stage.ts).

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());
const ctx = operatorContext();

async function companyWithProduct() {
  const c = await makeCompany(d.db);
  const p = await upsertProduct(d.db, ctx, c.id, { name: 'Gateway', identifier: 'gateway' });
  return { c, productId: p.product.id };
}
/** Results `from`..`to`-1, each its own fingerprint. */
const results = (from: number, to: number, rule = 'r'): Res[] =>
  Array.from({ length: to - from }, (_, i) => ({ rule, file: `src/f${from + i}.ts`, line: 1, fp: `fp-${from + i}` }));
const log = (rs: Res[]) => sarif('Scanner', rs);
const states = async (companyId: string) =>
  Object.fromEntries((await listFindings(d.db, companyId, {}, { limit: 1000 })).items.map((f) => [f.artifactUri, `${f.state}/${f.reopenCount}`]));

/** What the company holds in the tables a push writes ahead of its transaction (the base table, not the view). */
async function held(companyId: string) {
  const n = async (t: typeof findings | typeof findingTransitions | typeof sarifStages | typeof sarifScans) =>
    (await d.db.select({ n: count() }).from(t).where(eq(t.companyId, companyId)))[0]?.n;
  return { scans: await n(sarifScans), findings: await n(findings), transitions: await n(findingTransitions), claims: await n(sarifStages) };
}

async function withFailure(table: string, event: 'insert' | 'delete', when: string, run: () => Promise<unknown>) {
  await d.ddl(`create function stage_test_fail() returns trigger language plpgsql as $$ begin raise exception 'injected failure'; end $$`);
  try {
    await d.ddl(`create trigger stage_test_fail before ${event} on ${table} for each row when (${when}) execute function stage_test_fail()`);
    return await run();
  } finally {
    await d.ddl(`drop trigger if exists stage_test_fail on ${table}`);
    await d.ddl('drop function stage_test_fail');
  }
}
const injected = (e: unknown) => /injected failure/.test(String((e as Error).cause ?? e));

describe('staged SARIF findings', () => {
  it('leaves nothing visible and nothing staged when a push fails half-way through its staged rows', async () => {
    const { c } = await companyWithProduct();
    await pushSarif(d.db, ctx, c.id, 'gateway', log(results(0, 10)));
    const before = await states(c.id);
    // A push with new findings in several chunks, fixes (0-4 gone) and a failure in a later chunk.
    const n = STAGE_CHUNK_ROWS * 2 + 50;
    await withFailure('findings', 'insert', `new.rule_id = 'boom'`, () =>
      assert.rejects(pushSarif(d.db, ctx, c.id, 'gateway', log([...results(5, n), ...results(n, n + 1, 'boom')])), injected),
    );
    assert.deepEqual(await states(c.id), before, 'readers see the findings as the first scan left them');
    assert.deepEqual(await held(c.id), { scans: 1, findings: 10, transitions: 0, claims: 0 });
  });

  it('leaves nothing visible and nothing staged when the transaction that stores the scan fails', async () => {
    const { c } = await companyWithProduct();
    await pushSarif(d.db, ctx, c.id, 'gateway', log(results(0, 10)));
    await pushSarif(d.db, ctx, c.id, 'gateway', log(results(2, 10)));
    const before = await states(c.id);
    assert.equal(before['src/f0.ts'], 'fixed/0');
    // New 10-11, fixes 5-9, reopens 0-1: all of it staged, then the scan's insert fails.
    await withFailure('sarif_scans', 'insert', 'true', () =>
      assert.rejects(pushSarif(d.db, ctx, c.id, 'gateway', log([...results(0, 5), ...results(10, 12)])), injected),
    );
    assert.deepEqual(await states(c.id), before);
    assert.deepEqual(await held(c.id), { scans: 2, findings: 10, transitions: 0, claims: 0 });
  });

  it('shows a stored scan whole when its transitions were not folded in, and folds them at the next push', async () => {
    const { c } = await companyWithProduct();
    await pushSarif(d.db, ctx, c.id, 'gateway', log(results(0, 10)));
    await pushSarif(d.db, ctx, c.id, 'gateway', log(results(3, 10)));
    // The fold deletes the transitions it applies: failing it leaves them behind, the scan stored.
    const r = (await withFailure('finding_transitions', 'delete', 'true', () =>
      pushSarif(d.db, ctx, c.id, 'gateway', log([...results(0, 2), ...results(5, 10)])),
    )) as { fixed: number; reopened: number };
    assert.deepEqual([r.fixed, r.reopened], [2, 2]);
    assert.deepEqual((await held(c.id)).transitions, 4, 'the transitions are still apart from their findings');
    const seen = await states(c.id);
    assert.deepEqual(
      [seen['src/f0.ts'], seen['src/f1.ts'], seen['src/f2.ts'], seen['src/f3.ts'], seen['src/f4.ts'], seen['src/f5.ts']],
      ['open/1', 'open/1', 'fixed/0', 'fixed/0', 'fixed/0', 'open/0'],
      'readers see the scan applied: 0-1 reopened, 3-4 fixed',
    );
    assert.deepEqual(await countOpenFindings(d.db, c.id), new Map([['gateway', { medium: 7 }]]));
    const again = await pushSarif(d.db, ctx, c.id, 'gateway', log([...results(0, 2), ...results(5, 10)]));
    assert.deepEqual([again.new, again.fixed, again.reopened, again.unchanged], [0, 0, 0, 7], 'the next push reconciles with the folded state');
    assert.deepEqual(await states(c.id), seen);
    assert.deepEqual((await held(c.id)).transitions, 0);
    const [row] = await d.db
      .select({ state: findings.state, reopenCount: findings.reopenCount })
      .from(findings)
      .where(and(eq(findings.companyId, c.id), eq(findings.artifactUri, 'src/f0.ts')));
    assert.deepEqual(row, { state: 'open', reopenCount: 1 }, 'folded into the row once');
  });

  it("removes the rows of a push whose process stopped, once its claim is stale, at the company's next push", async () => {
    const { c, productId } = await companyWithProduct();
    await pushSarif(d.db, ctx, c.id, 'gateway', log(results(0, 3)));
    const stopped = { companyId: c.id, productId, scanId: newId() };
    await claimProduct(d.db, stopped);
    const left = { rule: 'r', file: 'src/left.ts', line: 1, fp: 'fp-left' };
    const extracted = [...readSarif(log([left])).byTool.values()].flat();
    await insertFindings(d.db, { ...stopped, now: new Date() }, extracted, STAGE_CHUNK_ROWS, async () => undefined);
    assert.equal(Object.keys(await states(c.id)).includes('src/left.ts'), false, 'a row of an unstored scan is never seen');
    await d.db
      .update(sarifStages)
      .set({ heartbeatAt: new Date(Date.now() - STALE_CLAIM_MS - 1000) })
      .where(eq(sarifStages.productId, productId));
    const r = await pushSarif(d.db, ctx, c.id, 'gateway', log([...results(0, 3), left]));
    assert.deepEqual([r.new, r.unchanged], [1, 3], "the stopped push's row is gone: its fingerprint is new again");
    assert.deepEqual(await held(c.id), { scans: 2, findings: 4, transitions: 0, claims: 0 });
  });

  it('takes turns per product: two pushes at once each reconcile with the other whole', async () => {
    const { c } = await companyWithProduct();
    const [a, b] = await Promise.all([
      pushSarif(d.db, ctx, c.id, 'gateway', log(results(0, 600))),
      pushSarif(d.db, ctx, c.id, 'gateway', log(results(300, 900))),
    ]);
    const pair = [a, b].map((x) => [x.new, x.fixed, x.unchanged]).sort();
    assert.deepEqual(pair, [
      [300, 300, 300],
      [600, 0, 0],
    ]);
    const open = Object.values(await states(c.id)).filter((s) => s === 'open/0').length;
    assert.equal(open, 600);
    assert.deepEqual(await held(c.id), { scans: 2, findings: 900, transitions: 0, claims: 0 });
  });

  it('never shows part of a scan to a reader that reads while the push writes ahead of it', async () => {
    const { c } = await companyWithProduct();
    const n = STAGE_CHUNK_ROWS * 3;
    let done = false;
    const push = pushSarif(d.db, ctx, c.id, 'gateway', log(results(0, n))).finally(() => (done = true));
    const seen = new Set<number>();
    let duringStage = 0;
    while (!done) {
      const claimed = (await held(c.id)).claims;
      const open = (await countOpenFindings(d.db, c.id)).get('gateway')?.medium ?? 0;
      seen.add(open);
      if (claimed && open === 0) duringStage++;
    }
    await push;
    assert.ok(duringStage > 0, 'some reads ran while the push was writing ahead');
    assert.deepEqual(
      [...seen].filter((v) => v !== 0 && v !== n),
      [],
      'every read saw none or all of the scan',
    );
    assert.equal((await countOpenFindings(d.db, c.id)).get('gateway')?.medium, n);
  });
});
