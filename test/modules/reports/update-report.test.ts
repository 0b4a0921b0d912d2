import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, outboxEvents, reportEvents, reports } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { AppError } from '../../../src/kernel/errors.js';
import { getArticle14, recordFiling } from '../../../src/modules/article14/article14.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { getReport } from '../../../src/modules/reports/get-report.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());
const ctx = { actor: { type: 'api_key' as const, id: 'k1' } };
const code = (c: string, msg?: RegExp) => (e: unknown) => e instanceof AppError && e.code === c && (!msg || msg.test(e.message));

async function newReport() {
  const c = await makeCompany(d.db);
  const { report } = await fileReport(d.db, operatorContext(), c, { description: 'Auth bypass in the T2 web UI' }, 'api');
  return { c, id: report.submissionId };
}

describe('updateReport', () => {
  it('moves a report along its lifecycle with history, audit and a status event', async () => {
    const { c, id } = await newReport();
    const v = await updateReport(d.db, ctx, c.id, id, { status: 'triaging', cvssVector: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H', cwe: 'CWE-287' });
    assert.equal(v.status, 'triaging');
    assert.equal(v.cvssScore, 9.8);
    assert.equal(v.severity, 'critical');
    assert.equal(v.cwe, 'CWE-287');
    const history = await d.db.select().from(reportEvents).where(eq(reportEvents.reportId, id));
    assert.equal(history.length, 1);
    assert.equal(history[0]?.fromStatus, 'new');
    assert.equal(history[0]?.toStatus, 'triaging');
    assert.equal(history[0]?.actorId, 'k1');
    const ev = await d.db
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, c.id), eq(outboxEvents.type, 'vulnerability.status_changed')));
    assert.deepEqual(ev[0]?.payload.data, { submissionId: id, from: 'new', to: 'triaging', changedAt: v.updatedAt });
    const audit = await d.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, id), eq(auditLog.action, 'reports.update')));
    assert.deepEqual(audit[0]?.details, { changed: ['status', 'cvssVector', 'cvssScore', 'severity', 'cwe'], from: 'new', to: 'triaging' });
  });

  it('refuses an illegal transition with CONFLICT and changes nothing', async () => {
    const { c, id } = await newReport();
    await assert.rejects(updateReport(d.db, ctx, c.id, id, { status: 'fixed', cwe: 'CWE-79' }), code('CONFLICT', /from new to fixed/));
    const v = await getReport(d.db, c.id, id);
    assert.equal(v.status, 'new');
    assert.equal(v.cwe, null, 'the facts sent with a refused transition are not stored either');
  });

  it('needs a real original of the same company to close as duplicate', async () => {
    const { c, id } = await newReport();
    const other = await newReport();
    await assert.rejects(updateReport(d.db, ctx, c.id, id, { status: 'duplicate' }), code('CONFLICT', /duplicateOf/));
    await assert.rejects(updateReport(d.db, ctx, c.id, id, { status: 'duplicate', duplicateOf: other.id }), code('VALIDATION', /no such report/));
    await assert.rejects(updateReport(d.db, ctx, c.id, id, { status: 'duplicate', duplicateOf: id }), code('VALIDATION', /itself/));
    const { report: original } = await fileReport(d.db, operatorContext(), c, { description: 'the first one' }, 'api');
    assert.equal((await updateReport(d.db, ctx, c.id, id, { status: 'duplicate', duplicateOf: original.submissionId })).duplicateOf, original.submissionId);
  });

  it("answers NOT_FOUND for another company's report and for a malformed id", async () => {
    const { id } = await newReport();
    const stranger = await makeCompany(d.db);
    await assert.rejects(updateReport(d.db, ctx, stranger.id, id, { status: 'triaging' }), code('NOT_FOUND'));
    await assert.rejects(getReport(d.db, stranger.id, id), code('NOT_FOUND'));
    await assert.rejects(getReport(d.db, stranger.id, 'not-a-uuid'), code('NOT_FOUND'));
  });

  it('validates facts: partial CVSS, unknown Member State, time without zone, unknown field', async () => {
    const { c, id } = await newReport();
    await assert.rejects(updateReport(d.db, ctx, c.id, id, { cvssVector: 'CVSS:3.1/AV:N' }), code('VALIDATION', /missing base metrics/));
    await assert.rejects(updateReport(d.db, ctx, c.id, id, { memberStates: ['DE', 'US'] }), code('VALIDATION', /memberStates/));
    await assert.rejects(updateReport(d.db, ctx, c.id, id, { awareAt: '2026-11-01T10:00:00' }), code('VALIDATION', /awareAt/));
    await assert.rejects(updateReport(d.db, ctx, c.id, id, { severity: 'high' }), code('VALIDATION'));
    await assert.rejects(updateReport(d.db, ctx, c.id, id, {}), code('VALIDATION', /nothing to update/));
  });

  it('refuses awareness and fix times in the future beyond 5 minutes, which would silence the Article 14 clocks (issue 24)', async () => {
    const { c, id } = await newReport();
    const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();
    await assert.rejects(
      updateReport(d.db, ctx, c.id, id, { activelyExploited: true, awareAt: ahead(86_400_000) }),
      code('VALIDATION', /awareAt: must not be in the future/),
    );
    await assert.rejects(
      updateReport(d.db, ctx, c.id, id, { fixAvailableAt: ahead(10 * 60_000) }),
      code('VALIDATION', /fixAvailableAt: must not be in the future/),
    );
    const [row] = await d.db.select().from(reports).where(eq(reports.id, id));
    assert.deepEqual([row?.awareAt, row?.activelyExploited], [null, null], 'nothing was half-saved');
    const within = await updateReport(d.db, ctx, c.id, id, { activelyExploited: true, awareAt: ahead(60_000) });
    assert.equal(within.activelyExploited, true);
  });
});

describe('Article 14 status and filings', () => {
  it("computes clocks from the report's facts and records a filing once", async () => {
    const { c, id } = await newReport();
    const none = await getArticle14(d.db, c.id, id);
    assert.equal(none.applies, false);
    await assert.rejects(recordFiling(d.db, ctx, c.id, id, 'early_warning', {}), code('CONFLICT', /does not apply/));
    await updateReport(d.db, ctx, c.id, id, { activelyExploited: true, awareAt: '2026-11-20T08:00:00Z', memberStates: ['DE', 'AT'] });
    const now = new Date('2026-11-20T20:00:00Z');
    const s = await getArticle14(d.db, c.id, id, now);
    assert.equal(s.applies, true);
    assert.deepEqual(
      s.stages.map((x) => [x.stage, x.dueAt, x.state]),
      [
        ['early_warning', '2026-11-21T08:00:00.000Z', 'open'],
        ['notification', '2026-11-23T08:00:00.000Z', 'open'],
        ['final_report', null, 'awaiting_anchor'],
      ],
    );
    assert.equal(s.stages[0]?.pack.find((f) => f.label === 'Member States where the product is available')?.value, 'DE, AT');
    const filed = await recordFiling(d.db, ctx, c.id, id, 'early_warning', { filedAt: '2026-11-20T19:00:00Z', reference: 'SRP-2026-0042' }, now);
    assert.equal(filed.stages[0]?.state, 'filed');
    assert.deepEqual(filed.stages[0]?.filing, { filedAt: '2026-11-20T19:00:00.000Z', filedBy: 'api_key:k1', reference: 'SRP-2026-0042' });
    await assert.rejects(recordFiling(d.db, ctx, c.id, id, 'early_warning', {}, now), code('CONFLICT', /already recorded/));
    await assert.rejects(recordFiling(d.db, ctx, c.id, id, 'late_warning', {}, now), code('NOT_FOUND'));
    await assert.rejects(recordFiling(d.db, ctx, c.id, id, 'notification', { filedAt: '2030-01-01T00:00:00Z' }, now), code('VALIDATION', /future/));
  });
});
