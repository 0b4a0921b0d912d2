import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { mailMessages, outboxEvents } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { inboxCounts, InboxQuery, listInbox } from '../../../src/modules/article14/list-inbox.js';
import { inboxOverview } from '../../../src/modules/article14/inbox-overview.js';
import { updatePortalSettings } from '../../../src/modules/companies/portal-settings.js';
import { fanOutMail } from '../../../src/modules/mail/fan-out-mail.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { clocksOf, raiseResponseAlerts } from '../../../src/modules/reports/response-clocks.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { makeTenant, type Tenant } from '../../helpers/access.js';
import { testConfig } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

// The acknowledgement and assessment times a company promises on its portal, as clocks (issue 37 part 7).
let d: TestDatabase;
let acme: Tenant;
let silent: Tenant;
before(async () => {
  d = await createTestDatabase();
  acme = await makeTenant(d.db);
  silent = await makeTenant(d.db);
  await updatePortalSettings(d.db, testConfig(), operatorContext(), acme.company.id, { responseTimes: { acknowledgeDays: 1, assessDays: 3 } });
});
after(() => d.drop());

const DAY = 86_400_000;
const file = async (t: Tenant, status?: 'triaging' | 'accepted') => {
  const { report } = await fileReport(d.db, operatorContext(), t.company, { description: 'Clock test report' }, 'portal_form');
  if (status) await updateReport(d.db, operatorContext(), t.company.id, report.submissionId, { status: status === 'accepted' ? 'accepted' : 'triaging' });
  return report.submissionId;
};

describe('response clocks', () => {
  it('run while a report waits for them, and are due soon within a day (pure)', () => {
    const createdAt = new Date('2026-11-01T00:00:00Z');
    const days = { acknowledgeDays: 1, assessDays: 3 };
    assert.deepEqual(clocksOf({ ...days, status: 'new', createdAt }, new Date('2026-11-01T12:00:00Z')), [
      { clock: 'acknowledge', dueAt: '2026-11-02T00:00:00.000Z', state: 'due_soon' },
      { clock: 'assess', dueAt: '2026-11-04T00:00:00.000Z', state: 'running' },
    ]);
    assert.deepEqual(
      clocksOf({ ...days, status: 'triaging', createdAt }, new Date('2026-11-05T00:00:00Z')).map((c) => [c.clock, c.state]),
      [['assess', 'overdue']],
    );
    assert.deepEqual(clocksOf({ ...days, status: 'accepted', createdAt }, new Date('2026-11-05T00:00:00Z')), []);
    assert.deepEqual(clocksOf({ acknowledgeDays: null, assessDays: null, status: 'new', createdAt }, new Date('2026-12-01T00:00:00Z')), []);
  });

  it('announce each overdue clock once, with a webhook event and team mail, and show in the inbox', async () => {
    const fresh = await file(acme);
    const triaging = await file(acme, 'triaging');
    await file(acme, 'accepted');
    await file(silent);
    const inTwoDays = new Date(Date.now() + 2 * DAY);
    const first = await raiseResponseAlerts(d.db, inTwoDays);
    assert.deepEqual(first, [{ reportId: fresh, clock: 'acknowledge' }]);
    assert.deepEqual(await raiseResponseAlerts(d.db, inTwoDays), [], 'a second pass raises nothing');

    const later = await raiseResponseAlerts(d.db, new Date(Date.now() + 4 * DAY));
    assert.deepEqual(later.map((a) => `${a.reportId}/${a.clock}`).sort(), [`${fresh}/assess`, `${triaging}/assess`].sort());
    const events = await d.db
      .select()
      .from(outboxEvents)
      .where(and(eq(outboxEvents.companyId, acme.company.id), eq(outboxEvents.type, 'vulnerability.response_overdue')));
    assert.equal(events.length, 3);
    assert.equal(
      (
        await d.db
          .select()
          .from(outboxEvents)
          .where(and(eq(outboxEvents.companyId, silent.company.id), eq(outboxEvents.type, 'vulnerability.response_overdue')))
      ).length,
      0,
      'no promise on the portal, no clock',
    );
    const ack = events.find((e) => e.payload.data?.clock === 'acknowledge');
    assert.equal(ack?.payload.data?.submissionId, fresh);

    await d.db.transaction((tx) =>
      fanOutMail(
        tx,
        events.map((e) => ({ id: e.id, companyId: e.companyId, type: e.type, payload: e.payload })),
        new Date(),
      ),
    );
    const mail = await d.db
      .select()
      .from(mailMessages)
      .where(and(eq(mailMessages.companyId, acme.company.id), eq(mailMessages.kind, 'report.response_overdue')));
    assert.equal(mail.length, 3, 'the administrator gets one mail per overdue clock');
    assert.deepEqual(new Set(mail.map((m) => m.recipient)), new Set([acme.admin.email]));

    const page = await listInbox(d.db, acme.company.id, InboxQuery.parse({ tab: 'open' }), inTwoDays);
    const row = page.items.find((i) => i.id === fresh);
    assert.equal(row?.response?.clock, 'acknowledge');
    assert.equal(row?.response?.state, 'overdue');
    const counts = await inboxCounts(d.db, acme.company.id, inTwoDays);
    assert.equal(counts.responseOverdue, 1);
    assert.equal(counts.responseDueSoon, 1, 'the triaging report is assessed within a day');
    const overview = await inboxOverview(d.db, acme.company.id, inTwoDays);
    assert.deepEqual(overview.responseClocks[0], { submissionId: fresh, clock: 'acknowledge', dueAt: ack?.payload.data?.dueAt, state: 'overdue' });
    assert.equal(overview.counts.responseOverdue, 1);
  });
});
