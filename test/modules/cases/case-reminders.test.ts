import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { remindSilentParticipants } from '../../../src/modules/cases/case-reminders.js';
import { runMailPass, type MailWorkerOptions } from '../../../src/modules/mail/mail-worker.js';
import { apiJson, signInCookie, type Tenant, twoKeyedTenants } from '../../helpers/access.js';
import { dashboardClient } from '../../helpers/dashboard.js';
import type { TestApp } from '../../helpers/app.js';
import { type MailSuite, mailSuite } from '../../helpers/smtp-peer.js';

const suite = mailSuite();
let peer: MailSuite['peer'];
let t: TestApp;
let o: MailWorkerOptions;
let a: Tenant;
let b: Tenant;
let keyA: string;
let keyB: string;

const DAY = 86_400_000;
const SECRET = 'SECRET-91c2: the TFTP block number wraps in tftp_recv';

type Participant = { id: string; channel: string; remindedAt: string | null };
type CaseBody = {
  id: string;
  participants: Participant[];
  log: { kind: string; participantId: string | null; details: Record<string, unknown> }[];
  coordinatorSuggestedAt: string | null;
};

const api = (key: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) => apiJson(t, key, method, url, payload);

before(async () => {
  ({ peer, t, o } = await suite.ready);
  ({ a, b, keyA, keyB } = await twoKeyedTenants(t.database.db));
});

describe('reminders and escalation (issue 34)', () => {
  it('reminds silent participants once per notice after the company period, over their channel, then suggests a coordinator with a pack', async () => {
    const db = t.database.db;
    const settings = await api(keyA, 'PUT', '/upstream-settings/case-reminders', { days: 3 });
    assert.equal(settings.status, 200, JSON.stringify(settings.body));
    assert.equal((settings.body as { caseReminderDays: number }).caseReminderDays, 3);
    assert.equal((await api(keyA, 'PUT', '/upstream-settings/case-reminders', { days: 0 })).status, 400);

    const report = (await fileReport(db, operatorContext(), a.company, { description: SECRET }, 'api')).report.submissionId;
    const c = (await api(keyA, 'POST', '/cases', { title: 'TFTP wrap in lwIP', reportIds: [report] })).body as { id: string };
    await api(keyA, 'POST', `/cases/${c.id}/participants`, { role: 'upstream_maintainer', email: 'silent@tftp.example' });
    await api(keyA, 'POST', `/cases/${c.id}/participants`, { role: 'other_vendor', companySlug: b.company.slug });
    const prepared = (await api(keyA, 'POST', `/cases/${c.id}/notices`, {})).body as { id: string }[];
    assert.equal((await api(keyA, 'POST', `/cases/${c.id}/notices/confirm`, { noticeIds: prepared.map((n) => n.id) })).status, 200);
    await runMailPass(db, o);
    await peer.waitFor(1);
    const start = Date.now();

    assert.deepEqual(await remindSilentParticipants(db, new Date(start + 2 * DAY)), { reminded: 0, suggested: 0 }, 'within the period: nothing');
    const due = new Date(start + 3 * DAY + 60_000);
    assert.deepEqual(await remindSilentParticipants(db, due), { reminded: 2, suggested: 0 });
    assert.deepEqual(await remindSilentParticipants(db, new Date(due.getTime() + 60_000)), { reminded: 0, suggested: 0 }, 'once per notice');

    // The e-mail participant gets the reminder over the real SMTP peer: who and where, no report text.
    const before = peer.arrived.length;
    await runMailPass(db, o, due);
    await peer.waitFor(before + 1);
    const mail = peer.arrived.slice(before).find((m) => m.envelopeTo.includes('silent@tftp.example'));
    assert.ok(mail, 'the reminder arrived');
    assert.match(mail.parsed.subject ?? '', new RegExp(`^Reminder: ${a.company.name}: coordinated vulnerability disclosure, case ${c.id}`));
    assert.match(mail.parsed.text ?? '', /no acknowledgement in 3 days/);
    assert.ok(!mail.raw.includes('SECRET-91c2') && !mail.raw.includes('TFTP wrap'), 'no report text or title in clear');

    // B, on this instance, finds it in the thread of the case notified to it, and acknowledges.
    const [inbound] = (await api(keyB, 'GET', '/inbound-cases')).body as { participantId: string }[];
    assert.ok(inbound);
    const shared = (await api(keyB, 'GET', `/inbound-cases/${inbound.participantId}`)).body as { messages: { author: string; body: string }[] };
    assert.deepEqual(
      shared.messages.map((m) => m.author),
      ['company'],
    );
    assert.match(shared.messages[0]?.body ?? '', /has had no acknowledgement in 3 days/);
    assert.equal((await api(keyB, 'POST', `/inbound-cases/${inbound.participantId}/acknowledge`)).status, 200);

    // After two periods the still-silent e-mail participant makes the case suggest a coordinator, once.
    assert.deepEqual(await remindSilentParticipants(db, new Date(start + 6 * DAY + 60_000)), { reminded: 0, suggested: 1 });
    assert.deepEqual(await remindSilentParticipants(db, new Date(start + 9 * DAY)), { reminded: 0, suggested: 0 });
    const after = (await api(keyA, 'GET', `/cases/${c.id}`)).body as CaseBody;
    assert.ok(after.coordinatorSuggestedAt);
    const silent = after.participants.find((p) => p.channel === 'email');
    assert.equal(silent?.remindedAt, due.toISOString());
    assert.deepEqual(
      after.log
        .filter((e) => e.kind === 'reminder_sent')
        .map((e) => e.details.channel)
        .sort(),
      ['cradle', 'email'],
    );
    assert.deepEqual(
      after.log.filter((e) => e.kind === 'coordinator_suggested').map((e) => [e.participantId, e.details.silentDays]),
      [[silent.id, 6]],
    );

    // The pack: a download for a CSIRT, with participants, dates, embargo and log, and no secrets.
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/cases/${c.id}/coordinator-pack`, headers: { authorization: `Bearer ${keyA}` } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-disposition']), new RegExp(`attachment; filename="case-${c.id}-coordinator-pack.json"`));
    const pack = res.json() as {
      vendor: { name: string };
      participants: { name: string; notifiedAt: string }[];
      log: { kind: string }[];
      reports: { submissionId: string }[];
    };
    assert.equal(pack.vendor.name, a.company.name);
    assert.equal(pack.participants.length, 2);
    assert.ok(pack.participants.every((p) => p.notifiedAt));
    assert.deepEqual(
      pack.reports.map((r) => r.submissionId),
      [report],
    );
    assert.ok(pack.log.some((e) => e.kind === 'coordinator_suggested'));
    assert.ok(!res.body.includes('SECRET-91c2') && !/linkTokenDigest|pgpKey|coordination\/[0-9a-f]{64}/.test(res.body), 'no report text, link or key');
    assert.equal((await api(keyB, 'GET', `/cases/${c.id}/coordinator-pack`)).status, 404, "another company's case is not found");

    // The case page suggests the coordinator and offers the same pack as a download.
    const browser = dashboardClient(t, await signInCookie(t, a.admin.email));
    const page = await browser.page(`/cases/${c.id}`);
    assert.match(page.body, new RegExp(`id="coordinator-suggested".*href="/cases/${c.id}/coordinator-pack" download`, 's'));
    const download = await browser.page(`/cases/${c.id}/coordinator-pack`);
    assert.equal(download.statusCode, 200);
    assert.equal((download.json() as { case: { id: string } }).case.id, c.id);
  });
});
