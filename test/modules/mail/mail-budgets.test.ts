import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { mailMessages } from '../../../src/db/schema/index.js';
import { runMailPass, type MailWorkerOptions } from '../../../src/modules/mail/mail-worker.js';
import { enqueueEvent } from '../../../src/modules/webhooks/enqueue-event.js';
import { dispatchOutbox } from '../../../src/modules/webhooks/dispatch-outbox.js';
import { makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';
import { portalHost, type TestApp } from '../../helpers/app.js';
import { dashboardClient } from '../../helpers/dashboard.js';
import { freshAddress } from '../../helpers/intake.js';
import { type MailSuite, mailSuite } from '../../helpers/smtp-peer.js';
import { makeMember } from '../../helpers/team.js';

// The default cap (MAIL_MAX_PER_RECIPIENT_PER_HOUR): issue 32 finding 1 was seen with it.
const CAP = 20;
const REPORTS = 100;
const SECRET = 'FLOOD-TEXT-91c2';
const HOUR = 3_600_000;

const suite = mailSuite({}, { retryScale: 0.0001 });
let peer: MailSuite['peer'];
let t: TestApp;
let o: MailWorkerOptions;

before(async () => {
  ({ peer, t, o } = await suite.ready);
});

const file = (slug: string, description: string) =>
  t.app.inject({
    method: 'POST',
    url: '/submit',
    headers: { host: portalHost(slug), 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: new URLSearchParams({ description }).toString(),
    remoteAddress: freshAddress(),
  });
const to = (addr: string) => peer.arrived.filter((m) => m.envelopeTo.includes(addr));

/** Dispatches and sends until nothing is left, every pass deciding at `now` (the clock moved). */
async function deliverAt(now: Date): Promise<void> {
  await dispatchOutbox(t.database.db, new Date(), { mail: true });
  for (let i = 0; i < 20; i++) {
    const tally = await runMailPass(t.database.db, o, now);
    if (Object.keys(tally).length === 0) return;
  }
}

describe('mail budgets by kind (issue 32, finding 1)', () => {
  let a: Tenant;
  let psirt: { email: string };

  before(async () => {
    a = await makeTenant(t.database.db);
    psirt = await makeMember(t.database.db, a.company.id, a.admin.id, 'psirt');
  });

  it(`delivers every Article 14 and KEV mail after ${REPORTS} anonymous reports, and folds the new-report notices past the cap into one digest`, async () => {
    for (let i = 0; i < REPORTS; i++) {
      const res = await file(a.company.slug, `${SECRET} ${i}`);
      assert.equal(res.statusCode, 200, res.body);
    }
    // The clocks and a KEV match come after the flood: on main the cap had already silenced them.
    await t.database.db.transaction(async (tx) => {
      const at = new Date();
      await enqueueEvent(
        tx,
        a.company.id,
        'article14.deadline_approaching',
        { submissionId: 'r-approaching', stage: 'early_warning', dueAt: '2026-12-01T10:00:00Z' },
        at,
      );
      await enqueueEvent(tx, a.company.id, 'article14.overdue', { submissionId: 'r-overdue', stage: 'notification', dueAt: '2026-11-20T10:00:00Z' }, at);
      await enqueueEvent(
        tx,
        a.company.id,
        'vulnerability.kev_added',
        { productIdentifier: 'pkg:npm/widget', matches: [{ vulnerability: 'CVE-2024-0001', kev: true }] },
        at,
      );
    });
    // One instant for the whole burst, a minute into the next clock hour (no test straddles an hour's end).
    const burst = new Date(Math.floor(Date.now() / HOUR) * HOUR + HOUR + 60_000);
    await deliverAt(burst);

    for (const member of [a.admin.email, psirt.email]) {
      const got = to(member).map((m) => m.parsed.subject ?? '');
      assert.equal(got.filter((s) => s.startsWith('New vulnerability report')).length, CAP, member);
      assert.deepEqual(
        got.filter((s) => !s.startsWith('New vulnerability report')).sort(),
        [
          'Actively exploited vulnerability in pkg:npm/widget: CVE-2024-0001',
          'Article 14 early_warning due 2026-12-01T10:00:00Z for report r-approaching',
          'OVERDUE: Article 14 notification for report r-overdue',
        ],
        `${member}: every legal-clock and KEV mail arrived although the cap was reached`,
      );
      const folded = await t.database.db
        .select()
        .from(mailMessages)
        .where(and(eq(mailMessages.recipient, member), eq(mailMessages.kind, 'report.new'), eq(mailMessages.state, 'folded')));
      assert.equal(folded.length, REPORTS - CAP, `${member}: the notices past the cap wait for the digest`);
    }

    // The dashboard says what was held back, to whom, and when the digest goes.
    const page = await dashboardClient(t, await signInCookie(t, a.admin.email)).page('/settings/notifications');
    const due = new Date(Math.floor(burst.getTime() / HOUR) * HOUR + HOUR);
    const at = `<time datetime="${due.toISOString()}">${due.toISOString().slice(0, 19).replace('T', ' ')} UTC</time>`;
    for (const member of [a.admin.email, psirt.email])
      assert.ok(page.body.includes(`${REPORTS - CAP} new-report notices to ${member} were folded into a digest at ${at}`), page.body);

    // Nothing more before the hour ends; then one digest each, counting the folded notices.
    const before = peer.arrived.length;
    await deliverAt(new Date(due.getTime() - 1000));
    assert.equal(peer.arrived.length, before);
    await deliverAt(new Date(due.getTime() + 1000));
    await peer.waitFor(before + 2);
    for (const member of [a.admin.email, psirt.email]) {
      const digests = to(member).filter((m) => /digest/i.test(m.parsed.subject ?? ''));
      assert.equal(digests.length, 1, member);
      const d = digests[0];
      assert.ok(d);
      assert.equal(d.parsed.subject, `${REPORTS - CAP} more new vulnerability reports (digest)`);
      assert.match(d.parsed.text ?? '', new RegExp(`${REPORTS - CAP} new vulnerability reports arrived`));
      assert.match(d.parsed.text ?? '', /http:\/\/localhost:3000\/reports\b/);
      assert.doesNotMatch(d.raw, new RegExp(SECRET), 'a digest carries no report text');
    }
    assert.equal(peer.arrived.filter((m) => new RegExp(SECRET).test(m.raw)).length, 0);
    const after = await dashboardClient(t, await signInCookie(t, a.admin.email)).page('/settings/notifications');
    assert.ok(after.body.includes(`${REPORTS - CAP} new-report notices to ${a.admin.email} were folded into a digest at ${at} (sent)`), after.body);
  });
});
