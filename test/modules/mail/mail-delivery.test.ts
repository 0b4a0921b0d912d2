import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { decrypt, generateKey, readMessage, readPrivateKey } from 'openpgp';
import { companies, mailMessages } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { claimDueMail } from '../../../src/modules/mail/mail-queue.js';
import { runMailPass, type MailWorkerOptions } from '../../../src/modules/mail/mail-worker.js';
import { postMessage } from '../../../src/modules/messages/messages.js';
import { updateReport } from '../../../src/modules/reports/update-report.js';
import { dispatchOutbox } from '../../../src/modules/webhooks/dispatch-outbox.js';
import { makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';
import { createTestApp, portalHost, type TestApp } from '../../helpers/app.js';
import { dashboardClient } from '../../helpers/dashboard.js';
import { freshAddress } from '../../helpers/intake.js';
import { type MailSuite, mailSuite } from '../../helpers/smtp-peer.js';

const SECRET = 'SECRET-REPORT-TEXT-7f3a';
const CAP = 5;

const suite = mailSuite({ MAIL_MAX_PER_RECIPIENT_PER_HOUR: String(CAP) }, { retryScale: 0.0001 });
let peer: MailSuite['peer'];
let t: TestApp;
let o: MailWorkerOptions;
let researcherKeys: { publicKey: string; privateKey: string };

before(async () => {
  ({ peer, t, o } = await suite.ready);
  researcherKeys = await generateKey({ userIDs: [{ email: 'researcher@example.org' }], type: 'curve25519', format: 'armored' });
});

/** What the worker does after a change: the dispatcher queues the events' mail, the sender sends everything due. */
async function deliverAll(): Promise<void> {
  await dispatchOutbox(t.database.db, new Date(), { mail: true });
  for (let i = 0; i < 20; i++) {
    const tally = await runMailPass(t.database.db, o);
    if (Object.keys(tally).length === 0) return;
  }
}

const file = (slug: string, fields: Record<string, string>) =>
  t.app.inject({
    method: 'POST',
    url: '/submit',
    headers: { host: portalHost(slug), 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    payload: new URLSearchParams(fields).toString(),
    remoteAddress: freshAddress(),
  });
const submissionId = (body: string): string => /id="submission-id">([^<]+)</.exec(body)?.[1] ?? '';
const statusLink = (body: string): string => /id="status-link" href="([^"]+)"/.exec(body)?.[1] ?? '';
const to = (addr: string) => peer.arrived.filter((m) => m.envelopeTo.includes(addr));

async function decryptText(armored: string): Promise<string> {
  const privateKey = await readPrivateKey({ armoredKey: researcherKeys.privateKey });
  const { data } = await decrypt({ message: await readMessage({ armoredMessage: armored }), decryptionKeys: privateKey });
  return String(data);
}

describe('e-mail to the team and to the researcher', () => {
  let a: Tenant;
  before(async () => {
    a = await makeTenant(t.database.db);
  });

  it('mails the researcher an encrypted acknowledgement and the team a notice, neither with report text', async () => {
    const before = peer.arrived.length;
    const res = await file(a.company.slug, {
      description: `${SECRET} description`,
      stepsToReproduce: `${SECRET} steps`,
      impact: `${SECRET} impact`,
      contactEmail: 'researcher@example.org',
      pgpKey: researcherKeys.publicKey,
      researcherUpdates: 'on',
    });
    assert.equal(res.statusCode, 200, res.body);
    const id = submissionId(res.body);
    await deliverAll();
    await peer.waitFor(before + 2);
    const [team] = to(a.admin.email);
    const [ack] = to('researcher@example.org');
    assert.ok(team && ack);
    // The team's notice: sender named after the company, both parts, a link, an unsubscribe header.
    assert.equal(team.parsed.subject, `New vulnerability report ${id}`);
    assert.equal(team.parsed.from?.value[0]?.name, a.company.name);
    assert.equal(team.parsed.from?.value[0]?.address, 'cradle@cradle.test');
    assert.match(team.parsed.text ?? '', new RegExp(`http://localhost:3000/reports/${id}`));
    assert.match(String(team.parsed.html), new RegExp(`href="http://localhost:3000/reports/${id}"`));
    assert.deepEqual(
      team.parsed.headers.get('list'),
      { unsubscribe: { url: 'http://localhost:3000/settings/notifications' } },
      'the team link opens a page; it takes no one-click POST',
    );
    // The researcher's acknowledgement: encrypted, and only the private key reads it.
    assert.match(ack.parsed.text ?? '', /^-----BEGIN PGP MESSAGE-----/);
    assert.match(String(ack.parsed.html), /-----BEGIN PGP MESSAGE-----/);
    assert.doesNotMatch(ack.raw, /status\//);
    const clear = await decryptText(ack.parsed.text ?? '');
    assert.match(clear, new RegExp(`Submission: ${id}`));
    // The first mail to an address links to no report text: a confirmation link, never the status link (issue 32, finding 4).
    assert.ok(!clear.includes(statusLink(res.body)) && !clear.includes('/status/'), clear);
    assert.match(clear, new RegExp(`Confirm this address: http://${a.company.slug}\\.localhost:3000/mail/confirm/${id}/[0-9a-f]{32}`));
    assert.match(ack.raw, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r$/m);
    const ackList = ack.parsed.headers.get('list') as { unsubscribe?: { url?: string } } | undefined;
    assert.match(ackList?.unsubscribe?.url ?? '', new RegExp(`^http://${a.company.slug}\\.localhost:3000/mail/stop/${id}/[0-9a-f]{32}$`));
    for (const m of [team, ack]) assert.doesNotMatch(m.raw, new RegExp(SECRET), 'no report text in any mail');
    // Sent mail keeps no template values (the status link left the database with the mail).
    const rows = await t.database.db.select().from(mailMessages).where(eq(mailMessages.companyId, a.company.id));
    assert.deepEqual(
      rows.map((r) => [r.state, r.data]),
      [
        ['sent', null],
        ['sent', null],
      ],
    );
    assert.deepEqual(rows.map((r) => r.encrypted).sort(), [false, true]);
  });

  it('tells the researcher of status changes and team messages until they stop it', async () => {
    const res = await file(a.company.slug, { description: `${SECRET} two`, contactEmail: 'clear@example.org', researcherUpdates: 'on' });
    const id = submissionId(res.body);
    await deliverAll();
    const acked = to('clear@example.org');
    assert.equal(acked.length, 1);
    const ackText = acked[0]?.parsed.text ?? '';
    assert.ok(!ackText.includes('/status/'), 'no key: the acknowledgement is in clear, without the status link');
    // Nothing but that first mail until the address is confirmed from it.
    await updateReport(t.database.db, operatorContext(), a.company.id, id, { status: 'triaging' });
    await deliverAll();
    assert.equal(to('clear@example.org').length, 1, 'no status mail to an unconfirmed address');
    const confirm = new URL(/Confirm this address: (\S+)/.exec(ackText)?.[1] ?? 'http://x/');
    const asked = await t.app.inject({ url: confirm.pathname, headers: { host: confirm.host } });
    assert.equal(asked.statusCode, 200);
    assert.match(asked.body, /Confirm this address/);
    assert.ok(!asked.body.includes(`${SECRET} two`) && !asked.body.includes('/status/'), 'the confirmation page shows no report text nor the status link');
    const confirmed = await t.app.inject({ method: 'POST', url: confirm.pathname, headers: { host: confirm.host } });
    assert.equal(confirmed.statusCode, 200);
    assert.match(confirmed.body, /id="mail-confirmed"/);
    assert.ok(!confirmed.body.includes(`${SECRET} two`) && !confirmed.body.includes('/status/'));
    await updateReport(t.database.db, operatorContext(), a.company.id, id, { status: 'accepted' });
    await postMessage(t.database.db, { actor: { type: 'user', id: a.admin.id } }, a.company.id, id, 'company', { body: `${SECRET} reply` });
    await deliverAll();
    const notes = to('clear@example.org').slice(1);
    assert.deepEqual(notes.map((m) => m.parsed.subject).sort(), [`Report ${id}: status is now accepted`, `The team wrote about your report ${id}`].sort());
    for (const m of notes) assert.doesNotMatch(m.raw, new RegExp(SECRET));
    // The unsubscribe link (one-click POST) stops the rest.
    const list = notes[0]?.parsed.headers.get('list') as { unsubscribe?: { url?: string }; 'unsubscribe-post'?: { name?: string } } | undefined;
    assert.equal(list?.['unsubscribe-post']?.name, 'List-Unsubscribe=One-Click');
    const unsubscribe = list?.unsubscribe?.url ?? '';
    const u = new URL(unsubscribe);
    const stop = await t.app.inject({
      method: 'POST',
      url: u.pathname,
      headers: { host: u.host, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    assert.equal(stop.statusCode, 200);
    const wrong = await t.app.inject({ method: 'POST', url: u.pathname.replace(/[0-9a-f]{32}$/, '0'.repeat(32)), headers: { host: u.host } });
    assert.equal(wrong.statusCode, 404);
    await updateReport(t.database.db, operatorContext(), a.company.id, id, { status: 'fixing' });
    await deliverAll();
    assert.equal(to('clear@example.org').length, 3, 'nothing after unsubscribing');
  });

  it("follows each member's choices from the notifications page", async () => {
    const b = await makeTenant(t.database.db);
    const client = dashboardClient(t, await signInCookie(t, b.admin.email));
    const page = await client.page('/settings/notifications');
    assert.match(page.body, /id="mail-report.new" name="kind" value="report.new" checked/);
    assert.doesNotMatch(page.body, /not configured/);
    const saved = await client.form('/settings/notifications', { kind: ['article14.overdue'] });
    assert.equal(saved.statusCode, 303);
    assert.doesNotMatch((await client.page('/settings/notifications')).body, /value="report.new" checked/);
    await file(b.company.slug, { description: 'no mail for this one' });
    await deliverAll();
    assert.equal(to(b.admin.email).length, 0);
  });
});

describe('abuse: header injection and the per-recipient limit', () => {
  it('keeps every header to one line and the recipients to the ones meant', async () => {
    const c = await makeTenant(t.database.db);
    // A name that slipped past company validation still cannot add a header.
    await t.database.db.update(companies).set({ name: 'Evil\r\nBcc: victim@evil.test' }).where(eq(companies.id, c.company.id));
    const res = await file(c.company.slug, { description: 'x', productName: 'Widget\r\nBcc: victim@evil.test\r\nSubject: pwned' });
    assert.equal(res.statusCode, 200);
    await deliverAll();
    const [m] = to(c.admin.email);
    assert.ok(m);
    assert.deepEqual(m.envelopeTo, [c.admin.email]);
    assert.equal(m.parsed.headers.get('bcc'), undefined);
    assert.equal(m.parsed.from?.value[0]?.name, 'Evil Bcc: victim@evil.test');
    assert.match(m.parsed.subject ?? '', /^New vulnerability report [0-9a-f-]+ \(Widget Bcc: victim@evil\.test Subject: pwned\)$/);
    assert.equal(peer.arrived.filter((x) => x.envelopeTo.includes('victim@evil.test')).length, 0);
  });

  it('refuses an opt-in address that names more than one mailbox, filing nothing', async () => {
    const c = await makeTenant(t.database.db);
    for (const contactEmail of ['a@example.org\r\nBcc: victim@evil.test', 'a@example.org, victim@evil.test', '']) {
      const res = await file(c.company.slug, { description: 'x', contactEmail, researcherUpdates: 'on' });
      assert.equal(res.statusCode, 400, contactEmail);
      assert.match(res.body, /name="researcherUpdates" value="on" checked/);
    }
    const queued = await t.database.db.select().from(mailMessages).where(eq(mailMessages.companyId, c.company.id));
    assert.equal(queued.length, 0);
  });

  it('takes at most 5 e-mail opt-ins an hour for one address from any number of client addresses; the rest are refused with the text kept (issue 32, finding 4)', async () => {
    const c = await makeTenant(t.database.db);
    const d = await makeTenant(t.database.db);
    for (let i = 0; i < 5; i++) {
      // Every company's form counts for the same address.
      const res = await file((i % 2 ? c : d).company.slug, { description: `burst ${i}`, contactEmail: 'Target@example.org', researcherUpdates: 'on' });
      assert.equal(res.statusCode, 200);
    }
    const refused = await file(c.company.slug, { description: `${SECRET} six`, contactEmail: 'target@example.org', researcherUpdates: 'on' });
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) > 0);
    assert.match(refused.body, /this e-mail address was given for updates too often in the last hour; untick e-mail updates to file now/);
    assert.ok(refused.body.includes(`${SECRET} six`), 'the text is kept');
    // Without the opt-in the report is filed at once.
    assert.equal((await file(c.company.slug, { description: 'no updates', contactEmail: 'target@example.org' })).statusCode, 200);
    await deliverAll();
    assert.equal(to('Target@example.org').length + to('target@example.org').length, 5);
    const queued = await t.database.db
      .select()
      .from(mailMessages)
      .where(and(eq(mailMessages.companyId, c.company.id), eq(mailMessages.kind, 'researcher.ack')));
    assert.equal(queued.length, 2);
  });
});

describe('delivery survives an SMTP outage and a crashed sender', () => {
  it('sends every mail queued while the server was down, once, after it is back', async () => {
    const c = await makeTenant(t.database.db);
    await peer.stop();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(submissionId((await file(c.company.slug, { description: `outage ${i}` })).body));
    await dispatchOutbox(t.database.db, new Date(), { mail: true });
    const failed = await runMailPass(t.database.db, o);
    assert.deepEqual(failed, { retry: 3 });
    const pending = await t.database.db.select().from(mailMessages).where(eq(mailMessages.companyId, c.company.id));
    assert.ok(pending.every((m) => m.state === 'pending' && m.lastError !== null && m.data !== null));
    await peer.start();
    await new Promise((r) => setTimeout(r, 50));
    await deliverAll();
    assert.deepEqual(
      to(c.admin.email)
        .map((m) => m.parsed.subject)
        .sort(),
      ids.map((id) => `New vulnerability report ${id}`).sort(),
    );
  });

  it('sends a mail whose sender died after claiming it, once its lease ends', async () => {
    const c = await makeTenant(t.database.db);
    await file(c.company.slug, { description: 'crash' });
    await dispatchOutbox(t.database.db, new Date(), { mail: true });
    const claimed = await claimDueMail(t.database.db, new Date(), { batch: 100, leaseMs: 60_000 });
    assert.equal(claimed.filter((m) => m.companyId === c.company.id).length, 1);
    // The claimant "dies": nothing recorded. Before the lease ends nobody else takes the mail.
    assert.deepEqual(await runMailPass(t.database.db, o), {});
    await runMailPass(t.database.db, o, new Date(Date.now() + 61_000));
    assert.equal(to(c.admin.email).length, 1);
  });
});

describe('with no SMTP configured', () => {
  it('offers no opt-in, queues nothing and says so in the dashboard', async () => {
    const bare = await createTestApp();
    try {
      const d = await makeTenant(bare.database.db);
      const form = await bare.app.inject({ url: '/submit', headers: { host: portalHost(d.company.slug) } });
      assert.doesNotMatch(form.body, /researcherUpdates/);
      await bare.app.inject({
        method: 'POST',
        url: '/submit',
        remoteAddress: freshAddress(),
        headers: { host: portalHost(d.company.slug), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ description: 'x', contactEmail: 'r@example.org', researcherUpdates: 'on' }).toString(),
      });
      await dispatchOutbox(bare.database.db, new Date(), { mail: false });
      assert.equal((await bare.database.db.select().from(mailMessages)).length, 0);
      const page = await dashboardClient(bare, await signInCookie(bare, d.admin.email)).page('/settings/notifications');
      assert.match(page.body, /E-mail is not configured on this Cradle instance/);
    } finally {
      await bare.close();
    }
  });
});
