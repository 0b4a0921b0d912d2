import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { apiKeys, keyStateVersion, outboxEvents, users } from '../../../src/db/schema/index.js';
import { newId } from '../../../src/kernel/ids.js';
import { raiseKeyExpiryNotices } from '../../../src/modules/keys/key-expiry-notices.js';
import { runMailPass, type MailWorkerOptions } from '../../../src/modules/mail/mail-worker.js';
import { dispatchOutbox } from '../../../src/modules/webhooks/dispatch-outbox.js';
import { makeKey, makeTenant, type Tenant } from '../../helpers/access.js';
import type { TestApp } from '../../helpers/app.js';
import { type MailSuite, mailSuite } from '../../helpers/smtp-peer.js';

const DAY = 24 * 3_600_000;

const suite = mailSuite();
let peer: MailSuite['peer'];
let t: TestApp;
let o: MailWorkerOptions;

before(async () => {
  ({ peer, t, o } = await suite.ready);
});

const eventsOf = (companyId: string) =>
  t.database.db
    .select()
    .from(outboxEvents)
    .where(and(eq(outboxEvents.companyId, companyId), eq(outboxEvents.type, 'api_key.expiring')));

describe('API keys about to expire', () => {
  let a: Tenant;
  let b: Tenant;
  let soon: Awaited<ReturnType<typeof makeKey>>;
  let psirtEmail: string;
  before(async () => {
    [a, b] = [await makeTenant(t.database.db), await makeTenant(t.database.db)];
    soon = await makeKey(t.database.db, a, { name: 'CI pipeline', expiresInDays: 3 });
    await makeKey(t.database.db, a, { name: 'long lived', expiresInDays: 90 });
    await makeKey(t.database.db, b, { name: 'other company', expiresInDays: 30 });
    psirtEmail = `psirt-${newId().slice(0, 8)}@example.test`;
    await t.database.db
      .insert(users)
      .values({ id: newId(), companyId: a.company.id, email: psirtEmail, passwordHash: 'x', role: 'psirt', createdAt: new Date() });
  });

  it('announces a key within seven days of its expiry once, with its name and last four characters, never its value', async () => {
    const now = new Date();
    const version = async () => (await t.database.db.select().from(keyStateVersion))[0]?.version;
    const v0 = await version();
    const raised = await raiseKeyExpiryNotices(t.database.db, now);
    assert.equal(await version(), v0, 'the notice mark is bookkeeping: the key cache is not invalidated by it');
    assert.deepEqual(
      raised.map((r) => r.keyId),
      [soon.id],
    );
    const [ev, ...more] = await eventsOf(a.company.id);
    assert.equal(more.length, 0);
    const data = (ev?.payload as { data: Record<string, unknown> }).data;
    assert.deepEqual(Object.keys(data).sort(), ['expiresAt', 'keyHint', 'keyId', 'name']);
    assert.equal(data.name, 'CI pipeline');
    assert.equal(data.keyHint, soon.key.slice(-4));
    assert.doesNotMatch(JSON.stringify(ev?.payload), new RegExp(soon.key));
    assert.equal((await raiseKeyExpiryNotices(t.database.db, now)).length, 0, 'a second pass announces nothing');
    assert.equal((await eventsOf(b.company.id)).length, 0, "the other company's key is 30 days out");
  });

  it('announces again when the expiry moves and later comes close; an expired key is not announced', async () => {
    const later = new Date(Date.now() + 20 * DAY);
    await t.database.db.update(apiKeys).set({ expiresAt: later }).where(eq(apiKeys.id, soon.id));
    assert.equal((await raiseKeyExpiryNotices(t.database.db, new Date())).length, 0);
    assert.deepEqual(
      (await raiseKeyExpiryNotices(t.database.db, new Date(later.getTime() - 2 * DAY))).map((r) => r.keyId),
      [soon.id],
    );
    assert.equal((await raiseKeyExpiryNotices(t.database.db, new Date(later.getTime() + DAY))).length, 0);
  });

  it('mails the administrators (not PSIRT members) through SMTP, linking the key page', async () => {
    const before = peer.arrived.length;
    await dispatchOutbox(t.database.db, new Date(), { mail: true });
    await runMailPass(t.database.db, o);
    const arrived = peer.arrived.slice(before).filter((m) => m.parsed.subject?.includes('CI pipeline'));
    assert.deepEqual(
      arrived
        .map((m) => m.envelopeTo)
        .flat()
        .sort(),
      [a.admin.email, a.admin.email].sort(),
      'one mail per announcement, to the administrator only',
    );
    assert.ok(!arrived.some((m) => m.envelopeTo.includes(psirtEmail)));
    const m = arrived[0];
    assert.match(m?.parsed.text ?? '', /The API key "CI pipeline" \(ending .{4}\) expires at/);
    assert.match(m?.parsed.text ?? '', /Manage API keys: http:\/\/[^/]+\/settings\/api-keys/);
    assert.match(String(m?.parsed.html), /href="http:\/\/[^"]+\/settings\/api-keys"/);
    assert.doesNotMatch(m?.raw ?? '', new RegExp(soon.key));
    assert.deepEqual(
      m?.parsed.headers.get('list'),
      { unsubscribe: { url: 'http://localhost:3000/settings/notifications' } },
      'the choice behind it can be changed',
    );
  });
});
