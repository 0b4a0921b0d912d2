import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorContext } from '../../../src/kernel/context.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { apiJson, type Tenant, twoKeyedTenants } from '../../helpers/access.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';

// A case's reports keep the order the caller listed them in: the first supplies the OSV draft and
// the GitHub notice's CVSS vector, so it must not depend on the reports' random ids.
let t: TestApp;
let a: Tenant;
let keyA: string;
const VECTOR_A = 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H';
const VECTOR_B = 'CVSS:3.1/AV:L/AC:H/PR:H/UI:R/S:U/C:L/I:N/A:N';

before(async () => {
  t = await createTestApp();
  ({ a, keyA } = await twoKeyedTenants(t.database.db));
});
after(() => t.close());

const report = async (description: string, cvssVector: string, cwe: string) => {
  const ctx = operatorContext();
  const { report: r } = await fileReport(t.database.db, ctx, a.company, { description }, 'api');
  await updateReport(t.database.db, ctx, a.company.id, r.submissionId, { cvssVector, cwe });
  return r.submissionId;
};

describe("a case's reports", () => {
  it('come in the order the case was opened with, and the first one drafts the OSV advisory', async () => {
    const A = await report('Report A', VECTOR_A, 'CWE-787');
    const B = await report('Report B', VECTOR_B, 'CWE-79');
    const C = await report('Report C', VECTOR_B, 'CWE-20');
    for (const [order, vector, cwe] of [
      [[B, A, C], VECTOR_B, 'CWE-79'],
      [[A, B, C], VECTOR_A, 'CWE-787'],
      [[C, A, B, A], VECTOR_B, 'CWE-20'],
    ] as const) {
      const opened = await apiJson(t, keyA, 'POST', '/cases', { title: 'Ordered', reportIds: order });
      assert.equal(opened.status, 201, JSON.stringify(opened.body));
      const c = opened.body as { id: string; reportIds: string[] };
      const listed = [...new Set(order)];
      assert.deepEqual(c.reportIds, listed, 'as listed, a repeated id once');
      const read = (await apiJson(t, keyA, 'GET', `/cases/${c.id}`)).body as { reportIds: string[] };
      assert.deepEqual(read.reportIds, listed);
      const fix = await apiJson(t, keyA, 'POST', `/cases/${c.id}/fixes`, { kind: 'description', body: 'Check the length.', osvDraft: true });
      assert.equal(fix.status, 201, JSON.stringify(fix.body));
      const osv = (fix.body as { osvDraft: { severity: { score: string }[]; database_specific: { cwe_ids: string[] } } }).osvDraft;
      assert.deepEqual(osv.severity, [{ type: 'CVSS_V3', score: vector }]);
      assert.deepEqual(osv.database_specific.cwe_ids, [cwe]);
    }
  });
});
