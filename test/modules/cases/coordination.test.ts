import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import * as openpgp from 'openpgp';
import { auditLog, mailMessages, outboxEvents } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { runMailPass, type MailWorkerOptions } from '../../../src/modules/mail/mail-worker.js';
import { dispatchOutbox } from '../../../src/modules/webhooks/dispatch-outbox.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { getReport } from '../../../src/modules/reports/get-report.js';
import { apiJson, type Tenant, twoKeyedTenants } from '../../helpers/access.js';
import { SITE, type TestApp } from '../../helpers/app.js';
import { makeTestKeys } from '../../helpers/openpgp-keys.js';
import { type GithubPeer, startGithubPeer } from '../../helpers/github-peer.js';
import { deliverGithubNotices } from '../../../src/modules/cases/github-deliver.js';
import { setGithubToken } from '../../../src/modules/upstream/upstream-settings.js';
import { type MailSuite, mailSuite } from '../../helpers/smtp-peer.js';

const suite = mailSuite();
let peer: MailSuite['peer'];
let t: TestApp;
let o: MailWorkerOptions;
let a: Tenant;
let b: Tenant;
let keyA: string;
let keyB: string;
let gh: GithubPeer;
/** The private link the participant without a key got by mail (test 1), and its case. */
let plainLink = '';
let firstCase = '';

const SECRET = 'SECRET-7f3a: the DHCP offer length is trusted in dhcp_parse_reply';

type Json = Record<string, unknown> & { id: string };

const api = (key: string, method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, payload?: unknown) => apiJson(t, key, method, url, payload);

before(async () => {
  ({ peer, t, o } = await suite.ready);
  ({ a, b, keyA, keyB } = await twoKeyedTenants(t.database.db));
  gh = await startGithubPeer();
  gh.repos.set('lwip-tcpip/lwip', { pvr: true });
  await setGithubToken(t.database.db, operatorContext(), { companyId: a.company.id, input: { githubToken: gh.token }, githubApiUrl: gh.apiUrl });
});
after(() => gh.close());

describe('coordination cases across two companies (issue 34)', () => {
  it('A notifies upstream B on this instance, two e-mail participants and a GitHub repository; B acknowledges and counters; A sees both', async () => {
    const db = t.database.db;
    const report = (await fileReport(db, operatorContext(), a.company, { description: SECRET, vulnerabilityType: 'memory_corruption' }, 'api')).report
      .submissionId;

    const opened = await api(keyA, 'POST', '/cases', { title: 'Overflow in lwIP DHCP', reportIds: [report] });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    const c = opened.body as Json & { origin: string; reportIds: string[]; version: number };
    assert.equal(c.origin, 'report');
    assert.deepEqual(c.reportIds, [report]);

    const addB = await api(keyA, 'POST', `/cases/${c.id}/participants`, { role: 'upstream_maintainer', companySlug: b.company.slug });
    assert.equal(addB.status, 201, JSON.stringify(addB.body));
    const pb = addB.body as Json & { channel: string; status: string; address: string };
    assert.deepEqual([pb.channel, pb.status, pb.address], ['cradle', 'not_contacted', b.company.slug]);

    assert.equal((await api(keyA, 'PUT', `/cases/${c.id}/embargo`, { until: '2099-02-01' })).status, 200);

    // Prepare shows exactly what goes out; nothing is sent yet.
    const prep1 = await api(keyA, 'POST', `/cases/${c.id}/notices`, {});
    assert.equal(prep1.status, 201, JSON.stringify(prep1.body));
    const [n1] = prep1.body as (Json & { body: string; recipient: string; encrypted: boolean; state: string })[];
    assert.ok(n1);
    assert.ok(n1.body.includes(SECRET), 'the notice to a company on this instance carries the report');
    assert.ok(n1.body.includes('2099-02-01'), 'and the proposed embargo');
    assert.deepEqual([n1.encrypted, n1.state], [false, 'prepared']);
    assert.deepEqual((await api(keyB, 'GET', '/inbound-cases')).body, [], 'nothing reaches B before a PSIRT member confirms');

    // A change to the case makes the preparation stale: confirming it is refused.
    const keys = await makeTestKeys('maintainer@lwip.example');
    const addMail = await api(keyA, 'POST', `/cases/${c.id}/participants`, {
      role: 'upstream_maintainer',
      email: 'maintainer@lwip.example',
      pgpKey: keys.publicKey,
    });
    assert.equal(addMail.status, 201);
    assert.equal((addMail.body as { encrypted: boolean }).encrypted, true);
    const addPlain = await api(keyA, 'POST', `/cases/${c.id}/participants`, { role: 'other_vendor', email: 'psirt@other.example' });
    assert.equal(addPlain.status, 201);
    // The maintainer of another component, reached through GitHub's private vulnerability reporting (the loopback peer).
    const addGh = await api(keyA, 'POST', `/cases/${c.id}/participants`, { role: 'upstream_maintainer', repositoryUrl: 'https://github.com/lwip-tcpip/lwip' });
    assert.equal(addGh.status, 201);
    const pGh = addGh.body as Json & { channel: string };
    assert.equal(pGh.channel, 'github');
    const stale = await api(keyA, 'POST', `/cases/${c.id}/notices/confirm`, { noticeIds: [n1.id] });
    assert.equal(stale.status, 409);
    assert.match((stale.body as { detail: string }).detail, /changed since notice .* was prepared/);

    const prep2 = await api(keyA, 'POST', `/cases/${c.id}/notices`, {});
    assert.equal(prep2.status, 201);
    const notices = prep2.body as (Json & { participantId: string; body: string; sharedBody: string | null; encrypted: boolean; recipient: string })[];
    assert.equal(notices.length, 4);
    const toMail = notices.find((n) => n.recipient === 'maintainer@lwip.example');
    const toPlain = notices.find((n) => n.recipient === 'psirt@other.example');
    assert.ok(toMail && toPlain);
    assert.equal(toMail.encrypted, true);
    assert.ok(toMail.body.includes(SECRET));
    assert.equal(toPlain.encrypted, false);
    assert.ok(!toPlain.body.includes(SECRET) && !toPlain.body.includes('lwIP DHCP'), 'a mail in clear holds no report text');
    assert.ok(toPlain.sharedBody?.includes(SECRET), 'the report waits behind the private link');
    const staleAgain = await api(keyA, 'POST', `/cases/${c.id}/notices/confirm`, { noticeIds: [n1.id] });
    assert.equal(staleAgain.status, 409, 'a superseded preparation cannot be sent');

    const sent = await api(keyA, 'POST', `/cases/${c.id}/notices/confirm`, { noticeIds: notices.map((n) => n.id) });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepEqual(
      (sent.body as { state: string }[]).map((n) => n.state).sort(),
      ['queued', 'sent', 'sent', 'sent'],
      'the GitHub notice waits for its delivery job',
    );
    assert.ok((await deliverGithubNotices(db, { apiUrl: gh.apiUrl, allowPrivate: true })) >= 1);
    const [advisory] = [...gh.advisories.values()].filter((x) => x.owner === 'lwip-tcpip' && x.repo === 'lwip');
    assert.ok(advisory && String(advisory.body.description).includes(SECRET), 'the repository received the report through GitHub');

    // B finds the report in its own inbox, marked as coming from the case.
    const inbound = await api(keyB, 'GET', '/inbound-cases');
    const [ib] = inbound.body as (Json & { participantId: string; from: string; peerReportId: string; embargo: { until: string } })[];
    assert.ok(ib);
    assert.equal(ib.from, a.company.name);
    assert.equal(ib.embargo.until, '2099-02-01');
    const landed = await getReport(db, b.company.id, ib.peerReportId);
    assert.equal(landed.source, 'coordination');
    assert.ok(landed.description.includes(SECRET));
    assert.equal((await api(keyA, 'GET', `/inbound-cases/${ib.participantId}`)).status, 404, 'A holds no participation of its own');

    const ack = await api(keyB, 'POST', `/inbound-cases/${ib.participantId}/acknowledge`);
    assert.equal(ack.status, 200, JSON.stringify(ack.body));
    assert.equal((ack.body as { status: string }).status, 'open');
    const bad = await api(keyB, 'POST', `/inbound-cases/${ib.participantId}/embargo`, { response: 'counter' });
    assert.equal(bad.status, 400);
    const counter = await api(keyB, 'POST', `/inbound-cases/${ib.participantId}/embargo`, { response: 'counter', until: '2099-03-01' });
    assert.equal(counter.status, 200);
    const msg = await api(keyB, 'POST', `/inbound-cases/${ib.participantId}/messages`, { body: 'We need until March for the backport.' });
    assert.equal(msg.status, 201);

    // A sees both answers on its case, in the log and as events and team mail.
    const after = (await api(keyA, 'GET', `/cases/${c.id}`)).body as {
      participants: {
        id: string;
        status: string;
        acknowledgedAt: string | null;
        embargoResponse: string;
        embargoCounterUntil: string | null;
        notifiedAt: string | null;
      }[];
      log: { kind: string }[];
      embargo: { state: string };
    };
    const ghAfter = after.participants.find((p) => p.id === pGh.id);
    assert.deepEqual([ghAfter?.status, Boolean(ghAfter?.notifiedAt)], ['contact_attempted', true]);
    const pbAfter = after.participants.find((p) => p.id === pb.id);
    assert.ok(pbAfter?.acknowledgedAt && pbAfter.notifiedAt);
    assert.deepEqual([pbAfter.status, pbAfter.embargoResponse, pbAfter.embargoCounterUntil], ['open', 'countered', '2099-03-01']);
    assert.equal(after.embargo.state, 'proposed');
    const kinds = after.log.map((e) => e.kind);
    for (const k of ['opened', 'participant_added', 'embargo_proposed', 'notice_prepared', 'notice_sent', 'acknowledged', 'embargo_countered', 'message'])
      assert.ok(kinds.includes(k), `the log records ${k}: ${kinds.join(', ')}`);
    const thread = (await api(keyA, 'GET', `/cases/${c.id}/messages`)).body as { author: string; body: string }[];
    assert.deepEqual(
      thread.map((m) => [m.author, m.body]),
      [['participant', 'We need until March for the backport.']],
    );
    const events = await db
      .select({ type: outboxEvents.type, payload: outboxEvents.payload })
      .from(outboxEvents)
      .where(eq(outboxEvents.companyId, a.company.id));
    const changes = events.filter((e) => e.type === 'case.participant_updated').map((e) => (e.payload as unknown as { data: { change: string } }).data.change);
    assert.deepEqual(changes.sort(), ['acknowledged', 'embargo_countered']);
    const audits = await db
      .select({ details: auditLog.details })
      .from(auditLog)
      .where(and(eq(auditLog.companyId, a.company.id)));
    assert.ok(!JSON.stringify(audits).includes('SECRET-7f3a') && !JSON.stringify(audits).includes('backport'), 'no report or message text in audit rows');

    await dispatchOutbox(db, new Date(), { mail: true });
    const team = await db
      .select()
      .from(mailMessages)
      .where(and(eq(mailMessages.companyId, a.company.id), eq(mailMessages.kind, 'case.update')));
    assert.deepEqual(team.map((m) => [m.recipient, m.data?.change]).sort(), [
      [a.admin.email, 'acknowledged'],
      [a.admin.email, 'embargo_countered'],
    ]);

    // The e-mail participants: one encrypted to its key, one with only the private link.
    const before = peer.arrived.length;
    await runMailPass(db, o);
    await peer.waitFor(before + 4);
    const arrived = peer.arrived.slice(before);
    const enc = arrived.find((m) => m.envelopeTo.includes('maintainer@lwip.example'));
    const plain = arrived.find((m) => m.envelopeTo.includes('psirt@other.example'));
    assert.ok(enc && plain);
    assert.ok(!enc.raw.includes('SECRET-7f3a') && !plain.raw.includes('SECRET-7f3a'), 'no report text leaves in clear');
    assert.ok(!plain.raw.includes('lwIP DHCP'));
    const armored = enc.parsed.text ?? '';
    assert.match(armored, /-----BEGIN PGP MESSAGE-----/);
    const decrypted = await openpgp.decrypt({
      message: await openpgp.readMessage({ armoredMessage: armored }),
      decryptionKeys: await openpgp.readPrivateKey({ armoredKey: keys.privateKey }),
    });
    assert.ok(String(decrypted.data).includes(SECRET), 'the maintainer decrypts the report');
    assert.match(String(decrypted.data), /\/coordination\/[0-9a-f]{64}/);
    const link = /http:\/\/localhost:3000(\/coordination\/[0-9a-f]{64})/.exec(plain.parsed.text ?? '')?.[1];
    assert.ok(link, plain.parsed.text);
    const queued = await db.select({ data: mailMessages.data, kind: mailMessages.kind }).from(mailMessages).where(eq(mailMessages.kind, 'case.notice'));
    assert.ok(!JSON.stringify(queued).includes('SECRET-7f3a'), 'the mail queue never held the report in clear');
    plainLink = link;
    firstCase = c.id;
  });

  it("prepares for GitHub, refuses a participant without a channel, another company's case as not found, and an address-less participant", async () => {
    const c = (await api(keyA, 'POST', '/cases', { title: 'From scratch OTHER-CASE-91' })).body as Json & { origin: string };
    assert.equal(c.origin, 'scratch');
    const gh = await api(keyA, 'POST', `/cases/${c.id}/participants`, { role: 'upstream_maintainer', repositoryUrl: 'https://github.com/lwip-tcpip/lwip' });
    assert.equal(gh.status, 201);
    assert.deepEqual([(gh.body as { channel: string }).channel, (gh.body as { address: string }).address], ['github', 'lwip-tcpip/lwip']);
    // The GitHub channel prepares a report for the repository's private vulnerability reporting (test/modules/cases/github-channel.test.ts).
    const prepared = await api(keyA, 'POST', `/cases/${c.id}/notices`, { participantIds: [(gh.body as Json).id] });
    assert.equal(prepared.status, 201, JSON.stringify(prepared.body));
    assert.equal((prepared.body as { recipient: string }[])[0]?.recipient, 'GitHub private vulnerability reporting of lwip-tcpip/lwip');
    const elsewhere = await api(keyA, 'POST', `/cases/${c.id}/participants`, { role: 'upstream_maintainer', repositoryUrl: 'https://git.example.org/lwip' });
    assert.equal((elsewhere.body as { channel: string }).channel, 'none');
    const refused = await api(keyA, 'POST', `/cases/${c.id}/notices`, { participantIds: [(elsewhere.body as Json).id] });
    assert.equal(refused.status, 422);
    assert.match((refused.body as { detail: string }).detail, /has no channel/);
    const empty = (await api(keyA, 'POST', '/cases', { title: 'Nobody to notify' })).body as Json;
    const none = await api(keyA, 'POST', `/cases/${empty.id}/notices`, {});
    assert.equal(none.status, 400);
    const two = await api(keyA, 'POST', `/cases/${c.id}/participants`, { role: 'coordinator', email: 'cert@example.org', companySlug: b.company.slug });
    assert.equal(two.status, 400);
    const self = await api(keyA, 'POST', `/cases/${c.id}/participants`, { role: 'other_vendor', companySlug: a.company.slug });
    assert.equal(self.status, 400);
    assert.equal((await api(keyB, 'GET', `/cases/${c.id}`)).status, 404);
    assert.equal((await api(keyB, 'POST', `/cases/${c.id}/participants`, { role: 'coordinator', email: 'cert@example.org' })).status, 404);
    const foreignReport = (await fileReport(t.database.db, operatorContext(), b.company, { description: 'B only' }, 'api')).report.submissionId;
    assert.equal((await api(keyA, 'POST', '/cases', { title: 'x', reportIds: [foreignReport] })).status, 404);
  });

  it("opens, through a participant's link, that case's shared thread and nothing else", async () => {
    assert.ok(plainLink, 'the first test mailed a link');
    const get = (url: string) => t.app.inject({ url, headers: { host: SITE } });
    const page = await get(plainLink);
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['x-robots-tag'], 'noindex, nofollow');
    assert.ok(page.body.includes('SECRET-7f3a'), 'the report waits behind the link');
    assert.ok(page.body.includes(a.company.name));
    assert.ok(!page.body.includes('OTHER-CASE-91'), "another case's title is not shown");
    assert.ok(!page.body.includes('backport'), "another participant's thread is not shown");
    assert.ok(!page.body.includes('maintainer@lwip.example') && !page.body.includes(b.company.slug), 'nor who else takes part');
    assert.equal((await get(`/coordination/${'0'.repeat(64)}`)).statusCode, 404);
    assert.equal((await get(plainLink.slice(0, -1))).statusCode, 404);
    assert.equal((await t.app.inject({ url: plainLink, headers: { host: `${b.company.slug}.localhost:3000` } })).statusCode, 404, 'not on a portal');

    const form = (path: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
      t.app.inject({
        method: 'POST',
        url: `${plainLink}${path}`,
        headers: { host: SITE, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: new URLSearchParams(body).toString(),
      });
    assert.equal((await form('/acknowledge', {}, { origin: 'https://evil.example' })).statusCode, 403);
    assert.equal((await form('/acknowledge', {})).statusCode, 303);
    const bad = await form('/embargo', { response: 'counter', until: 'soon' });
    assert.equal(bad.statusCode, 400);
    assert.ok(bad.body.includes('value="soon"'), 'the typed value is kept');
    assert.equal((await form('/embargo', { response: 'accept' })).statusCode, 303);
    const empty = await form('/messages', { body: '   ' });
    assert.equal(empty.statusCode, 400);
    assert.equal((await form('/messages', { body: 'Thanks, <b>we</b> are on it.' })).statusCode, 303);
    const after = await get(plainLink);
    assert.ok(after.body.includes('Thanks, &lt;b&gt;we&lt;/b&gt; are on it.'), 'participant text is escaped');
    assert.match(after.body, /id="participant-status"><strong>open<\/strong>/);

    const c = (await api(keyA, 'GET', `/cases/${firstCase}`)).body as {
      participants: { address: string; status: string; embargoResponse: string; acknowledgedAt: string | null }[];
    };
    const p = c.participants.find((x) => x.address === 'psirt@other.example');
    assert.deepEqual([p?.status, p?.embargoResponse, Boolean(p?.acknowledgedAt)], ['open', 'accepted', true]);
  });
});
