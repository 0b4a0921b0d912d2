import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import { mailMessages } from '../../../src/db/schema/index.js';
import { runMailPass, type MailWorkerOptions } from '../../../src/modules/mail/mail-worker.js';
import { makeTenant, signInCookie, type Tenant } from '../../helpers/access.js';
import type { TestApp } from '../../helpers/app.js';
import { dashboardClient } from '../../helpers/dashboard.js';
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

const codeAt = (secret: string, steps = 0) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + steps * 30_000 });

/** Runs the sender and returns the one mail that arrived for the administrator. */
async function nextNotice() {
  const before = peer.arrived.length;
  await runMailPass(t.database.db, o);
  await peer.waitFor(before + 1);
  assert.equal(peer.arrived.length, before + 1, 'one mail per change');
  const m = peer.arrived.at(-1);
  assert.ok(m);
  assert.deepEqual(m.envelopeTo, [acme.admin.email]);
  assert.equal(m.parsed.headers.get('list-unsubscribe'), undefined, 'a security notice cannot be unsubscribed from');
  return { subject: m.parsed.subject ?? '', text: m.parsed.text ?? '', html: String(m.parsed.html) };
}

describe('security notices of second-factor changes (issue 32, finding 2)', () => {
  it('mails the member when the second factor is turned on, its codes replaced and it is turned off, never a secret', async () => {
    const c = dashboardClient(t, await signInCookie(t, acme.admin.email));
    const started = await c.form('/account/second-factor/start', { password: TEST_PASSWORD });
    const secret = (/<code id="totp-secret">([A-Z2-7 ]+)<\/code>/.exec(started.body)?.[1] ?? '').replace(/ /g, '');
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const on = await c.form('/account/second-factor/confirm', { code: codeAt(secret) });
    assert.equal(on.statusCode, 200);
    const codesOf = (body: string) => (/<pre class="key" id="recovery-codes">([^<]+)<\/pre>/.exec(body)?.[1] ?? '').split('\n');
    const secrets = [secret, ...codesOf(on.body)];
    const enabled = await nextNotice();
    assert.equal(enabled.subject, 'Your account: the second factor was turned on and new recovery codes were made');
    assert.match(
      enabled.text,
      new RegExp(`On \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC, in a session of your account \\(${acme.admin.email.replace(/[.+]/g, '\\$&')}\\)`),
    );
    assert.match(enabled.text, /If it was not, someone holds one of your sessions/);
    assert.match(enabled.text, /Open your account: http:\/\/localhost:3000\/account/);

    const regen = await c.form('/account/second-factor/recovery-codes', { password: TEST_PASSWORD });
    assert.equal(regen.statusCode, 200);
    secrets.push(...codesOf(regen.body));
    assert.equal((await nextNotice()).subject, 'Your account: new recovery codes were made (the old ones no longer work)');

    const off = await c.form('/account/second-factor/disable', { password: TEST_PASSWORD, code: codeAt(secret, 1) });
    assert.equal(off.statusCode, 200, off.body.slice(0, 300));
    const disabled = await nextNotice();
    assert.equal(disabled.subject, 'Your account: the second factor was turned off');

    const all = peer.arrived.map((m) => `${m.parsed.subject}\n${m.parsed.text}\n${String(m.parsed.html)}`).join('\n');
    for (const s of [...secrets, TEST_PASSWORD]) assert.ok(!all.includes(s), 'no seed, recovery code or password in a notice');
    const rows = await t.database.db
      .select({ kind: mailMessages.kind, state: mailMessages.state })
      .from(mailMessages)
      .where(and(eq(mailMessages.companyId, acme.company.id), eq(mailMessages.recipient, acme.admin.email)));
    assert.deepEqual(rows, Array(3).fill({ kind: 'account.security_notice', state: 'sent' }));
  });

  it('queues nothing when a refused change changes nothing', async () => {
    const c = dashboardClient(t, await signInCookie(t, acme.admin.email));
    const before = (await t.database.db.select().from(mailMessages).where(eq(mailMessages.recipient, acme.admin.email))).length;
    assert.equal((await c.form('/account/second-factor/start', { password: 'not the password at all' })).statusCode, 400);
    const after = (await t.database.db.select().from(mailMessages).where(eq(mailMessages.recipient, acme.admin.email))).length;
    assert.equal(after, before);
  });
});
