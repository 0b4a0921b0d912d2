import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import { AppError } from '../../../src/kernel/errors.js';
import { exportReports } from '../../../src/modules/reports/export-reports.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

describe('exportReports', () => {
  it('pages through every report exactly once, newest first, at most 100 per page, own company only', async () => {
    const c = await makeCompany(d.db);
    const other = await makeCompany(d.db);
    await fileReport(d.db, operatorContext(), other, { description: 'not mine' }, 'api');
    const ids: string[] = [];
    for (let i = 0; i < 130; i++) ids.push((await fileReport(d.db, operatorContext(), c, { description: `report ${i}` }, 'api')).report.submissionId);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await exportReports(d.db, c.id, cursor ? { cursor } : {});
      assert.ok(page.reports.length <= 100);
      seen.push(...page.reports.map((r) => r.submissionId));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    assert.equal(pages, 2);
    assert.equal(seen.length, 130);
    assert.deepEqual(new Set(seen), new Set(ids));
    const first = await exportReports(d.db, c.id, { limit: '3' });
    assert.equal(first.reports.length, 3);
    assert.ok(first.reports[0]!.createdAt >= first.reports[2]!.createdAt, 'newest first');
  });

  it('filters by status and time, and refuses bad parameters', async () => {
    const c = await makeCompany(d.db);
    const { report } = await fileReport(d.db, operatorContext(), c, { description: 'to triage' }, 'api');
    await fileReport(d.db, operatorContext(), c, { description: 'stays new' }, 'api');
    await updateReport(d.db, operatorContext(), c.id, report.submissionId, { status: 'triaging' });
    const triaging = await exportReports(d.db, c.id, { status: 'triaging' });
    assert.deepEqual(
      triaging.reports.map((r) => r.submissionId),
      [report.submissionId],
    );
    assert.equal((await exportReports(d.db, c.id, { status: 'new,triaging' })).reports.length, 2);
    assert.equal((await exportReports(d.db, c.id, { since: '2999-01-01T00:00:00Z' })).reports.length, 0);
    const isValidation = (e: unknown) => e instanceof AppError && e.code === 'VALIDATION';
    await assert.rejects(exportReports(d.db, c.id, { limit: '101' }), isValidation);
    await assert.rejects(exportReports(d.db, c.id, { status: 'open' }), isValidation);
    await assert.rejects(exportReports(d.db, c.id, { cursor: 'bm9wZQ' }), isValidation);
    await assert.rejects(exportReports(d.db, c.id, { page: '2' }), isValidation);
  });
});
