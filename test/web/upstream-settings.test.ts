import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { auditLog, upstreamSettings } from '../../src/db/schema/index.js';
import { asSystem } from '../../src/db/tenant-scope.js';
import { makeTenant, signInCookie, type Tenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { dashboardClient } from '../helpers/dashboard.js';
import { makeMember } from '../helpers/team.js';

let t: TestApp;
let acme: Tenant;
let admin: ReturnType<typeof dashboardClient>;
before(async () => {
  t = await createTestApp();
  acme = await makeTenant(t.database.db);
  admin = dashboardClient(t, await signInCookie(t, acme.admin.email));
});
after(() => t.close());

const daysValue = (body: string) => /id="days" name="days"[^>]*value="([^"]*)"/.exec(body)?.[1];
const stored = async () =>
  (await asSystem(() => t.database.db.select().from(upstreamSettings).where(eq(upstreamSettings.companyId, acme.company.id))))[0]?.caseReminderDays ?? null;

describe('/settings/upstream: the case reminder period', () => {
  it('an administrator sees the default, saves a period (audited), and a refused one comes back as typed with a sentence', async () => {
    assert.equal(daysValue((await admin.page('/settings/upstream')).body), '7');

    const tooMany = await admin.form('/settings/upstream/case-reminders', { days: '120' });
    assert.equal(tooMany.statusCode, 400);
    assert.equal(daysValue(tooMany.body), '120');
    assert.match(tooMany.body, /id="days-error"[^>]*>[^<]*Days must be at most 90 days\./);
    const word = await admin.form('/settings/upstream/case-reminders', { days: 'ten' });
    assert.equal(word.statusCode, 400);
    assert.equal(daysValue(word.body), 'ten');
    assert.match(word.body, /Days must be a number\./);
    assert.equal(await stored(), null, 'nothing saved');

    const saved = await admin.form('/settings/upstream/case-reminders', { days: '10' });
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, '/settings/upstream?done=reminders');
    assert.equal(await stored(), 10);
    const page = await admin.page('/settings/upstream?done=reminders');
    assert.equal(daysValue(page.body), '10');
    assert.match(page.body, /The reminder period was saved\./);
    const audit = await asSystem(() => t.database.db.select().from(auditLog).where(eq(auditLog.companyId, acme.company.id)));
    assert.deepEqual(
      audit.filter((a) => a.action === 'upstream.case_reminders').map((a) => a.details),
      [{ days: 10 }],
    );
  });

  it('a viewer reads the period without a form; a viewer and a PSIRT member are refused the change', async () => {
    const viewer = await makeMember(t.database.db, acme.company.id, acme.admin.id, 'viewer');
    const reader = dashboardClient(t, await signInCookie(t, viewer.email));
    const page = await reader.page('/settings/upstream');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<p id="reminder-days">10 days\.<\/p>/);
    assert.equal(daysValue(page.body), undefined, 'no form');
    assert.equal((await reader.form('/settings/upstream/case-reminders', { days: '3' })).statusCode, 403);
    const psirt = await makeMember(t.database.db, acme.company.id, acme.admin.id, 'psirt');
    const member = dashboardClient(t, await signInCookie(t, psirt.email));
    assert.equal((await member.form('/settings/upstream/case-reminders', { days: '3' })).statusCode, 403);
    assert.equal(await stored(), 10);
  });
});
