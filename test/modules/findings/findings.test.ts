import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, count, eq } from 'drizzle-orm';
import { auditLog, findings, outboxEvents, sarifScans } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { AppError } from '../../../src/kernel/errors.js';
import { listFindings } from '../../../src/modules/findings/list-findings.js';
import { pushSarif } from '../../../src/modules/findings/push-sarif.js';
import { upsertProduct } from '../../../src/modules/products/upsert-product.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { sarif, fixture, isCode } from '../../helpers/evidence.js';
import { makeCompany } from '../../helpers/factories.js';

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());
const ctx = operatorContext();
const counts = (r: { new: number; fixed: number; reopened: number; unchanged: number }) => [r.new, r.fixed, r.reopened, r.unchanged];

async function companyWithProduct(identifier = 'gateway') {
  const c = await makeCompany(d.db);
  await upsertProduct(d.db, ctx, c.id, { name: 'Gateway', identifier });
  return c;
}
const all = async (companyId: string, filter = {}) => (await listFindings(d.db, companyId, filter, { limit: 1000 })).items;

describe('pushSarif reconciliation (ESLint output)', () => {
  it('same log twice changes nothing; a scan without one finding fixes exactly it; the finding coming back reopens it', async () => {
    const c = await companyWithProduct();
    // Scan 2 was taken in another checkout directory, with every line of util.js moved down one.
    const scan1 = { sourceRoot: '/tmp/evtools/sample' };
    const scan2 = { sourceRoot: '/tmp/evtools/sample2/' };
    const first = await pushSarif(d.db, ctx, c.id, 'gateway', fixture('eslint-scan-1.sarif'), scan1);
    assert.deepEqual(first.tools, ['ESLint']);
    assert.equal(first.resultCount, 7);
    assert.deepEqual(counts(first), [7, 0, 0, 0]);
    const afterFirst = await all(c.id);
    assert.deepEqual(afterFirst.map((f) => f.artifactUri).sort(), [
      'src/parse.js',
      'src/parse.js',
      'src/util.js',
      'src/util.js',
      'src/util.js',
      'src/util.js',
      'src/util.js',
    ]);

    const again = await pushSarif(d.db, ctx, c.id, 'gateway', fixture('eslint-scan-1.sarif'), scan1);
    assert.deepEqual(counts(again), [0, 0, 0, 7]);
    assert.deepEqual(await all(c.id), afterFirst, 'not one finding row changed');

    const second = await pushSarif(d.db, ctx, c.id, 'gateway', fixture('eslint-scan-2.sarif'), scan2);
    assert.deepEqual(counts(second), [0, 1, 0, 6]);
    const fixed = await all(c.id, { state: 'fixed' });
    assert.deepEqual(
      fixed.map((f) => [f.ruleId, f.fixedScanId]),
      [['no-debugger', second.id]],
    );
    assert.equal((await all(c.id, { state: 'open' })).length, 6);

    const third = await pushSarif(d.db, ctx, c.id, 'gateway', fixture('eslint-scan-1.sarif'), scan1);
    assert.deepEqual(counts(third), [0, 0, 1, 6]);
    const reopened = (await all(c.id)).find((f) => f.ruleId === 'no-debugger');
    assert.equal(reopened?.state, 'open');
    assert.equal(reopened?.reopenCount, 1);
    assert.equal(reopened?.fixedAt, null);
    assert.equal(reopened?.id, fixed[0]?.id, 'the same finding, not a new one');
  });

  it("keeps findings apart per tool: a scan by one tool never fixes another tool's findings", async () => {
    const c = await companyWithProduct();
    await pushSarif(d.db, ctx, c.id, 'gateway', sarif('Semgrep', [{ rule: 'sqli', file: 'a.py', line: 3 }]));
    await pushSarif(d.db, ctx, c.id, 'gateway', sarif('CodeQL', [{ rule: 'js/xss', file: 'b.js', line: 9 }]));
    const empty = await pushSarif(d.db, ctx, c.id, 'gateway', sarif('CodeQL', []));
    assert.deepEqual(counts(empty), [0, 1, 0, 0]);
    assert.deepEqual(
      (await all(c.id, { state: 'open' })).map((f) => f.tool),
      ['Semgrep'],
    );
    assert.deepEqual(
      (await all(c.id, { tool: 'CodeQL' })).map((f) => f.state),
      ['fixed'],
    );
  });

  it('keys on partialFingerprints when given, never on line numbers', async () => {
    const c = await companyWithProduct();
    await pushSarif(
      d.db,
      ctx,
      c.id,
      'gateway',
      sarif('T', [
        { rule: 'r', file: 'x.c', line: 10, fp: 'aaa' },
        { rule: 'r', file: 'x.c', line: 20, fp: 'bbb' },
      ]),
    );
    const moved = await pushSarif(
      d.db,
      ctx,
      c.id,
      'gateway',
      sarif('T', [
        { rule: 'r', file: 'x.c', line: 50, fp: 'bbb' },
        { rule: 'r', file: 'x.c', line: 11, fp: 'aaa' },
      ]),
    );
    assert.deepEqual(counts(moved), [0, 0, 0, 2]);
    const changed = await pushSarif(
      d.db,
      ctx,
      c.id,
      'gateway',
      sarif('T', [
        { rule: 'r', file: 'x.c', line: 10, fp: 'ccc' },
        { rule: 'r', file: 'x.c', line: 20, fp: 'bbb' },
      ]),
    );
    assert.deepEqual(counts(changed), [1, 1, 0, 1]);
  });

  it('takes only kind "fail" results that are not suppressed, with severity from level, rule default and security-severity', async () => {
    const c = await companyWithProduct();
    const log = JSON.parse(
      sarif(
        'Scanner',
        [
          { rule: 'crit', file: 'a', line: 1 },
          { rule: 'deflt', file: 'b', line: 1 },
          { rule: 'plain', file: 'c', line: 1 },
          { rule: 'noted', file: 'd', line: 1, level: 'note' },
          { rule: 'plain', file: 'e', line: 1, kind: 'pass' },
          { rule: 'plain', file: 'f', line: 1, kind: 'review' },
          { rule: 'plain', file: 'g', line: 1 },
        ],
        { crit: { securitySeverity: '9.8', level: 'note' }, deflt: { level: 'error' }, noted: { securitySeverity: '5.0' } },
      ),
    );
    log.runs[0].results[6].suppressions = [{ kind: 'inSource' }];
    const r = await pushSarif(d.db, ctx, c.id, 'gateway', JSON.stringify(log));
    assert.equal(r.resultCount, 7);
    assert.equal(r.findingCount, 4);
    const sev = Object.fromEntries((await all(c.id)).map((f) => [f.ruleId, [f.severity, f.level]]));
    assert.deepEqual(sev, { crit: ['critical', 'note'], deflt: ['high', 'error'], plain: ['medium', 'warning'], noted: ['medium', 'note'] });
    assert.deepEqual(
      (await all(c.id, { severity: 'critical' })).map((f) => f.ruleId),
      ['crit'],
    );
  });

  it('writes the scan, its audit row and the sarif.ingested event in the push', async () => {
    const c = await companyWithProduct();
    const r = await pushSarif(d.db, ctx, c.id, 'gateway', sarif('T', [{ rule: 'r', file: 'x', line: 1 }]));
    const [scan] = await d.db.select().from(sarifScans).where(eq(sarifScans.id, r.id));
    assert.equal(scan?.findingCount, 1);
    const [audit] = await d.db.select().from(auditLog).where(eq(auditLog.targetId, r.id));
    assert.equal(audit?.action, 'sarif.push');
    const [event] = await d.db.select().from(outboxEvents).where(eq(outboxEvents.companyId, c.id));
    assert.equal(event?.payload.type, 'sarif.ingested');
    assert.equal(event?.payload.data.new, 1);
    assert.equal(event?.payload.data.productIdentifier, 'gateway');
  });
});

describe('pushSarif refusals and scoping', () => {
  const stored = async (companyId: string) => ({
    scans: (await d.db.select({ n: count() }).from(sarifScans).where(eq(sarifScans.companyId, companyId)))[0]?.n,
    findings: (await d.db.select({ n: count() }).from(findings).where(eq(findings.companyId, companyId)))[0]?.n,
    audit: (
      await d.db
        .select({ n: count() })
        .from(auditLog)
        .where(and(eq(auditLog.companyId, companyId), eq(auditLog.action, 'sarif.push')))
    )[0]?.n,
  });

  it("answers NOT_FOUND for another company's product and lists only the company's own findings", async () => {
    const mine = await companyWithProduct('mine');
    const other = await makeCompany(d.db);
    const log = sarif('T', [{ rule: 'r', file: 'x', line: 1 }]);
    await assert.rejects(pushSarif(d.db, ctx, other.id, 'mine', log), isCode('NOT_FOUND'));
    await pushSarif(d.db, ctx, mine.id, 'mine', log);
    assert.equal((await all(other.id)).length, 0);
    assert.equal((await all(other.id, { product: 'mine' })).length, 0);
    assert.equal((await all(mine.id, { product: 'mine' })).length, 1);
  });

  it('refuses invalid, non-2.1.0, oversize, deeply nested and over-long logs and stores nothing', async () => {
    const c = await companyWithProduct();
    const bad = JSON.parse(sarif('T', [{ rule: 'r', file: 'x', line: 1 }]));
    bad.runs[0].results[0].level = 'fatal';
    await assert.rejects(pushSarif(d.db, ctx, c.id, 'gateway', JSON.stringify(bad)), (e: unknown) => {
      assert.ok(e instanceof AppError && e.code === 'VALIDATION');
      assert.ok(
        (e.extra.issues ?? []).some((i) => i.path.startsWith('/runs/0/results/0')),
        JSON.stringify(e.extra.issues),
      );
      return true;
    });
    await assert.rejects(pushSarif(d.db, ctx, c.id, 'gateway', JSON.stringify({ version: '2.0.0', runs: [] })), isCode('VALIDATION'));
    await assert.rejects(pushSarif(d.db, ctx, c.id, 'gateway', sarif('T', []), { maxBytes: 10 }), isCode('PAYLOAD_TOO_LARGE'));
    await assert.rejects(pushSarif(d.db, ctx, c.id, 'gateway', `{"version":"2.1.0","runs":${'['.repeat(100)}${']'.repeat(100)}}`), isCode('VALIDATION'));
    const two = sarif('T', [
      { rule: 'r', file: 'x', line: 1 },
      { rule: 'r', file: 'y', line: 1 },
    ]);
    await assert.rejects(pushSarif(d.db, ctx, c.id, 'gateway', two, { maxResults: 1 }), isCode('VALIDATION'));
    assert.deepEqual(await stored(c.id), { scans: 0, findings: 0, audit: 0 });
  });

  it('validates list filters', async () => {
    const c = await companyWithProduct();
    await assert.rejects(listFindings(d.db, c.id, { state: 'closed' as 'open' }), isCode('VALIDATION'));
    await assert.rejects(listFindings(d.db, c.id, {}, { limit: 0 }), isCode('VALIDATION'));
  });
});
