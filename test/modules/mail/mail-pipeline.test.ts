import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { and, eq, inArray } from 'drizzle-orm';
import { mailMessages } from '../../../src/db/schema/index.js';
import { queueMail } from '../../../src/modules/mail/mail-queue.js';
import { smtpTransport } from '../../../src/modules/mail/mail-transport.js';
import { type MailWorkerOptions, runMailPass, startMailWorker } from '../../../src/modules/mail/mail-worker.js';
import { makeTenant } from '../../helpers/access.js';
import { type TestApp } from '../../helpers/app.js';
import { type MailSuite, mailSuite } from '../../helpers/smtp-peer.js';

/**
 * The worker keeps mail in flight while it claims more (issue 21's throughput): the per-recipient
 * limit must count mail still being sent, a mail must not be sent once its lease could end during
 * the attempt, and a stopping worker gives back what it has not handed to the server.
 */
const CAP = 3;
const suite = mailSuite({ MAIL_MAX_PER_RECIPIENT_PER_HOUR: String(CAP) }, { retryScale: 0.0001 });
let peer: MailSuite['peer'];
let t: TestApp;
let o: MailWorkerOptions;
before(async () => {
  ({ peer, t, o } = await suite.ready);
});

/** A worker closes its transport when it stops: each gets its own pool to the peer. */
const ownTransport = () => smtpTransport(peer.url);

async function until(cond: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; !(await cond()); await sleep(20)) assert.ok(Date.now() < end, `timed out waiting for ${what}`);
}

const rowsTo = (recipients: string[]) => t.database.db.select().from(mailMessages).where(inArray(mailMessages.recipient, recipients));
const arrivedTo = (addr: string) => peer.arrived.filter((m) => m.envelopeTo.includes(addr)).length;

/** Queues one invitation mail to each address (a mail that needs no outbox dispatch). */
async function queueTo(companyId: string, recipients: string[]): Promise<void> {
  for (const recipient of recipients)
    await queueMail(t.database.db, {
      companyId,
      kind: 'team.invitation',
      recipient,
      data: { inviteUrl: 'http://localhost:3000/invite/x', role: 'psirt', expiresAt: '2030-01-01 00:00 UTC' },
      now: new Date(),
    });
}

describe('mail in flight while the worker claims more', () => {
  it(`holds one address to ${CAP} an hour while the first mails to it are still unanswered`, async () => {
    const c = await makeTenant(t.database.db);
    const target = `burst-${c.company.slug}@example.org`;
    const BURST = 12;
    // Capped mail to one address (the form's opt-ins are bounded per address before they reach the queue).
    await queueTo(c.company.id, Array<string>(BURST).fill(target));
    const held0 = peer.held();
    peer.hold();
    // Claims of two at a time: every claim after the first runs while mails to the target are unanswered.
    const worker = startMailWorker(t.database.db, { ...o, transport: ownTransport(), batch: 2, pollMs: 20 });
    try {
      await until(async () => (await rowsTo([target])).filter((r) => r.state === 'suppressed').length === BURST - CAP, 'the burst to be decided');
      await until(() => peer.held() - held0 === CAP, `${CAP} mails at the server`);
      await sleep(200);
      assert.equal(peer.held() - held0, CAP, `exactly ${CAP} mails went to the server while none was answered`);
      assert.equal(arrivedTo(target), 0);
      peer.release();
      peer.answerHeld();
      await until(async () => (await rowsTo([target])).filter((r) => r.state === 'sent').length === CAP, 'the held mails to be recorded');
    } finally {
      peer.release();
      peer.answerHeld();
      await worker.stop();
    }
    assert.equal(arrivedTo(target), CAP);
    const rows = await rowsTo([target]);
    assert.deepEqual(rows.map((r) => r.state).sort(), [...Array(CAP).fill('sent'), ...Array(BURST - CAP).fill('suppressed')].sort());
    assert.ok(rows.filter((r) => r.state === 'suppressed').every((r) => /recipient limit/.test(r.lastError ?? '')));
  });

  it('gives a waiting mail back instead of sending it when its lease could end during the attempt; no mail goes twice', async () => {
    const c = await makeTenant(t.database.db);
    const to = Array.from({ length: 24 }, (_, i) => `lease-${i}-${c.company.slug}@example.org`);
    await queueTo(c.company.id, to);
    // One connection at a time, 120 ms per message: the last of 24 would start after the 2 s lease.
    // A mail is handed over only with half the lease (the attempt's bound here) left, else given back.
    peer.delay(120);
    const worker = startMailWorker(t.database.db, { ...o, transport: { ...ownTransport(), concurrency: 1 }, batch: 50, pollMs: 50, leaseMs: 2_000 });
    try {
      // A second sender takes whatever is due and unclaimed, as another instance would.
      for (let i = 0; (await rowsTo(to)).some((r) => r.state !== 'sent'); i++) {
        assert.ok(i < 400, `every mail sent: ${JSON.stringify((await rowsTo(to)).map((r) => [r.state, r.attempts, r.lockedUntil, r.lastError]))}`);
        await runMailPass(t.database.db, { ...o, batch: 5 });
        await sleep(25);
      }
    } finally {
      await worker.stop();
      peer.delay(0);
    }
    for (const addr of to) assert.equal(arrivedTo(addr), 1, addr);
    const rows = await rowsTo(to);
    assert.ok(
      rows.every((r) => r.state === 'sent' && r.attempts === 1),
      'a mail given back unsent keeps its attempt count',
    );
  });

  it('gives back, when it stops, mail not yet handed to the server; what is being sent finishes and is recorded', async () => {
    const c = await makeTenant(t.database.db);
    const to = Array.from({ length: 8 }, (_, i) => `stop-${i}-${c.company.slug}@example.org`);
    await queueTo(c.company.id, to);
    const held0 = peer.held();
    peer.hold();
    const worker = startMailWorker(t.database.db, { ...o, transport: ownTransport(), batch: 20, pollMs: 20 });
    let stopped: Promise<void> | undefined;
    try {
      await until(() => peer.held() - held0 === o.transport.concurrency, 'a send on every connection');
      stopped = worker.stop();
      // Given back at once, before the sends under way have ended.
      await until(
        async () =>
          (await rowsTo(to)).filter((r) => r.state === 'pending' && r.lockedUntil === null && r.attempts === 0).length === to.length - o.transport.concurrency,
        'the waiting mail to be given back',
      );
    } finally {
      peer.release();
      peer.answerHeld();
      await (stopped ?? worker.stop());
    }
    const rows = await rowsTo(to);
    assert.equal(rows.filter((r) => r.state === 'sent' && r.attempts === 1).length, o.transport.concurrency);
    assert.equal(rows.filter((r) => r.state === 'pending' && r.lastError === null).length, to.length - o.transport.concurrency);
    await runMailPass(t.database.db, o);
    for (const addr of to) assert.equal(arrivedTo(addr), 1, addr);
    const left = await t.database.db
      .select()
      .from(mailMessages)
      .where(and(eq(mailMessages.companyId, c.company.id), eq(mailMessages.state, 'pending')));
    assert.equal(left.length, 0);
  });
});
