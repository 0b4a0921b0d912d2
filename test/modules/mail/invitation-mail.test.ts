import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { mailMessages } from '../../../src/db/schema/index.js';
import { runMailPass, type MailWorkerOptions } from '../../../src/modules/mail/mail-worker.js';
import { makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';
import { SITE, type TestApp } from '../../helpers/app.js';
import { csrfOf, dashboardClient } from '../../helpers/dashboard.js';
import { TEST_PASSWORD } from '../../helpers/factories.js';
import { type MailSuite, mailSuite } from '../../helpers/smtp-peer.js';

const suite = mailSuite();
let peer: MailSuite['peer'];
let t: TestApp;
let o: MailWorkerOptions;
let acme: Tenant;

before(async () => {
  ({ peer, t, o } = await suite.ready);
  acme = await makeTenant(t.database.db);
});

describe('invitation mail (issue 21)', () => {
  it('mails the invited address a link that works once, with the company as sender and in the subject', async () => {
    const admin = dashboardClient(t, await signInCookie(t, acme.admin.email));
    const res = await admin.form('/settings/team/invitations', { email: 'invitee@example.org', role: 'psirt' });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(res.body, /An invitation was mailed to invitee@example.org/);
    assert.ok(!/\/invite\/[0-9a-f]{64}/.test(res.body), 'with mail on, the page does not show the link');
    assert.ok(!res.body.includes('id="mail-off"'));

    const before = peer.arrived.length;
    await runMailPass(t.database.db, o);
    await peer.waitFor(before + 1);
    const m = peer.arrived.at(-1);
    assert.ok(m);
    assert.deepEqual(m.envelopeTo, ['invitee@example.org']);
    assert.deepEqual(m.parsed.from?.value, [{ name: acme.company.name, address: 'cradle@cradle.test' }]);
    assert.equal(m.parsed.subject, `${acme.company.name}: you are invited to join as PSIRT member`);
    assert.equal(m.parsed.headers.get('list-unsubscribe'), undefined, 'an invitee has nothing to unsubscribe from');
    const text = m.parsed.text ?? '';
    const link = /Accept the invitation: (http:\/\/localhost:3000\/invite\/[0-9a-f]{64})/.exec(text)?.[1] ?? '';
    assert.ok(link, text);
    assert.match(text, /until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    assert.ok(String(m.parsed.html).includes(`<a href="${link}">Accept the invitation</a>`));

    // The queued row keeps the link only until it is sent.
    const rows = await t.database.db.select().from(mailMessages).where(eq(mailMessages.recipient, 'invitee@example.org'));
    assert.deepEqual(
      rows.map((r) => [r.kind, r.state, r.data, r.userId]),
      [['team.invitation', 'sent', null, null]],
    );

    const path = new URL(link).pathname;
    const join = async () => {
      const page = await t.app.inject({ url: path, headers: { host: SITE } });
      if (page.statusCode !== 200) return page;
      return t.app.inject({
        method: 'POST',
        url: path,
        headers: { host: SITE, cookie: String(page.headers['set-cookie']).split(';')[0] ?? '', 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({ _csrf: csrfOf(page.body), password: TEST_PASSWORD }).toString(),
      });
    };
    const first = await join();
    assert.equal(first.statusCode, 303);
    assert.equal(first.headers.location, '/dashboard');
    const second = await join();
    assert.equal(second.statusCode, 410);
    await signInCookie(t, 'invitee@example.org');
  });
});
