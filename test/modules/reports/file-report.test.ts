import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Context } from '../../../src/kernel/context.js';
import { sha256Hex } from '../../../src/kernel/ids.js';
import { getCompanyById } from '../../../src/modules/companies/get-company.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { getReportStatus } from '../../../src/modules/reports/get-report-status.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { makeCompany } from '../../helpers/factories.js';
import { intakeState } from '../../helpers/intake.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

const ctx: Context = { actor: { type: 'public' }, requestId: 'req-1', ip: '192.0.2.1', userAgent: 'test' };
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('fileReport', () => {
  it('stores the report and writes event, milestone, triage job and audit row in its transaction', async () => {
    const c = await makeCompany(t.database.db, { aiTriage: true });
    const input = {
      description: 'Admin login accepts any password',
      productName: 'T2',
      vulnerabilityType: 'authentication_bypass',
      contactEmail: 'r@example.org',
    };
    const { report, statusToken } = await fileReport(t.database.db, ctx, c, input, 'portal_form');
    assert.match(report.submissionId, /^[0-9a-f-]{36}$/);
    assert.match(report.createdAt, ISO_MS);
    assert.equal(report.status, 'new');

    const s = await intakeState(t.database.db, c.id);
    assert.equal(s.reports.length, 1);
    assert.equal(s.reports[0]?.id, report.submissionId);
    assert.equal(s.reports[0]?.description, input.description);
    assert.equal(s.reports[0]?.source, 'portal_form');
    assert.equal(s.reports[0]?.statusTokenDigest, sha256Hex(statusToken), 'only the digest of the status token is stored');

    assert.equal(s.events.length, 1);
    assert.equal(s.events[0]?.type, 'vulnerability.reported');
    assert.deepEqual(s.events[0]?.payload, {
      type: 'vulnerability.reported',
      timestamp: report.createdAt,
      data: { ...input, submissionId: report.submissionId, createdAt: report.createdAt, status: 'new', source: 'portal_form' },
    });
    assert.equal(s.events[0]?.dispatchedAt, null);

    assert.equal(s.firstReportAt?.toISOString(), report.createdAt, 'milestone carries the time of the first report');
    assert.deepEqual(
      s.jobs.map((j) => [j.reportId, j.state]),
      [[report.submissionId, 'pending']],
    );

    const audit = s.audits.find((a) => a.action === 'reports.file');
    assert.equal(audit?.targetId, report.submissionId);
    assert.equal(audit?.actorType, 'public');
    assert.equal(audit?.ip, '192.0.2.1');
    assert.deepEqual(audit?.details, { source: 'portal_form', triageQueued: true });
    const milestone = s.audits.filter((a) => a.action === 'companies.first_report');
    assert.deepEqual(
      milestone.map((a) => [a.targetId, a.details]),
      [[c.id, { submissionId: report.submissionId }]],
    );
    assert.ok(!JSON.stringify(audit).includes(statusToken), 'no secret in the audit row');
    assert.ok(!JSON.stringify(audit).includes(input.description), 'no report text in the audit row');
  });

  it('queues no triage job when the company has AI triage off, and keeps the first milestone', async () => {
    const c = await makeCompany(t.database.db);
    const first = await fileReport(t.database.db, ctx, c, { description: 'one' }, 'bulk');
    const fresh = await getCompanyById(t.database.db, c.id);
    const second = await fileReport(t.database.db, ctx, fresh, { description: 'two' }, 'bulk');
    // Even a stale company object (milestone not yet loaded) must not move the milestone.
    await fileReport(t.database.db, ctx, c, { description: 'three' }, 'bulk');
    const s = await intakeState(t.database.db, c.id);
    assert.equal(s.reports.length, 3);
    assert.equal(s.events.length, 3);
    assert.equal(s.jobs.length, 0);
    assert.equal(s.firstReportAt?.toISOString(), first.report.createdAt);
    assert.notEqual(second.report.submissionId, first.report.submissionId);
    assert.equal(s.audits.filter((a) => a.action === 'reports.file').length, 3);
    const milestone = s.audits.filter((a) => a.action === 'companies.first_report');
    assert.deepEqual(
      milestone.map((a) => a.details),
      [{ submissionId: first.report.submissionId }],
    );
  });

  it('sets the milestone once when first reports are filed concurrently', async () => {
    const c = await makeCompany(t.database.db);
    const filed = await Promise.all(Array.from({ length: 6 }, (_, i) => fileReport(t.database.db, ctx, c, { description: `r${i}` }, 'bulk')));
    const s = await intakeState(t.database.db, c.id);
    const firsts = s.audits.filter((a) => a.action === 'companies.first_report');
    assert.equal(firsts.length, 1, 'exactly one filing recorded the milestone');
    const winner = filed.find((f) => f.report.submissionId === (firsts[0]?.details as { submissionId: string }).submissionId);
    assert.ok(winner);
    assert.equal(s.firstReportAt?.toISOString(), winner?.report.createdAt);
  });

  it('rolls the whole report back when a side effect fails', async () => {
    const c = await makeCompany(t.database.db, { aiTriage: true });
    const db = t.database.db;
    // A real database failure inside the transaction, after the report row was inserted.
    await t.database.ddl(`create or replace function fail_outbox() returns trigger language plpgsql as $$
      begin if new.payload->'data'->>'description' = 'poison' then raise exception 'outbox unavailable'; end if; return new; end $$`);
    await t.database.ddl('create trigger fail_outbox before insert on outbox_events for each row execute function fail_outbox()');
    try {
      await assert.rejects(fileReport(db, ctx, c, { description: 'poison' }, 'portal_form'));
      const s = await intakeState(db, c.id);
      assert.deepEqual([s.reports.length, s.events.length, s.jobs.length, s.audits.filter((a) => a.action !== 'companies.create').length], [0, 0, 0, 0]);
      assert.equal(s.firstReportAt, null, 'the milestone is not recorded for a report that was not stored');
    } finally {
      await t.database.ddl('drop trigger fail_outbox on outbox_events');
    }
  });

  it('refuses invalid input with a VALIDATION error naming the field, storing nothing', async () => {
    const c = await makeCompany(t.database.db);
    await assert.rejects(fileReport(t.database.db, ctx, c, { description: 'd', contactEmail: 'x' }, 'api'), {
      code: 'VALIDATION',
      message: 'contactEmail: contactEmail must be an e-mail address',
    });
    assert.equal((await intakeState(t.database.db, c.id)).reports.length, 0);
  });
});

describe('getReportStatus', () => {
  it('finds a report by its status token on its own portal only', async () => {
    const a = await makeCompany(t.database.db);
    const b = await makeCompany(t.database.db);
    const { report, statusToken } = await fileReport(t.database.db, ctx, a, { description: 'secret details', productName: 'T2' }, 'portal_form');
    const s = await getReportStatus(t.database.db, a.id, statusToken);
    assert.deepEqual(s, {
      submissionId: report.submissionId,
      createdAt: report.createdAt,
      updatedAt: report.createdAt,
      status: 'new',
      productName: 'T2',
      vulnerabilityType: null,
    });
    await assert.rejects(getReportStatus(t.database.db, b.id, statusToken), { code: 'NOT_FOUND' });
    await assert.rejects(
      getReportStatus(
        t.database.db,
        a.id,
        statusToken.replace(/.$/, (x) => (x === '0' ? '1' : '0')),
      ),
      { code: 'NOT_FOUND' },
    );
    await assert.rejects(getReportStatus(t.database.db, a.id, sha256Hex(statusToken)), { code: 'NOT_FOUND' }, 'the stored digest is not a token');
  });
});
