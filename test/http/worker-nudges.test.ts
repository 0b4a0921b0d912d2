import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { operatorContext } from '../../src/kernel/context.js';
import { bearer, makeKey, makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { publishedAdvisory } from '../helpers/advisories.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';

// Issue 23: changes that queue events wake the webhook worker at once, from every surface.

let t: TestApp;
let acme: Tenant;
let nudges = 0;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  t.deps.webhookWorker = { nudge: () => void nudges++ };
});
after(() => t.close());

describe('the webhook worker is woken', () => {
  it('by withdrawing an advisory through the API', async () => {
    const adv = await publishedAdvisory(t.database.db, acme.company);
    const k = await makeKey(t.database.db, acme);
    const before = nudges;
    const res = await t.app.inject({ method: 'POST', url: `/api/v1/advisories/${adv.id}/withdraw`, headers: bearer(k.key), payload: { reason: 'Issued for the wrong product line' } });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(nudges, before + 1);
  });

  it('by a status change in the dashboard', async () => {
    const { report } = await fileReport(t.database.db, operatorContext(), acme.company, { description: 'x' }, 'api');
    const client = dashboardClient(t, await signInCookie(t, acme.admin.email));
    const before = nudges;
    const res = await client.form(`/reports/${report.submissionId}/status`, { status: 'triaging' });
    assert.equal(res.statusCode, 303);
    assert.equal(nudges, before + 1);
  });
});
