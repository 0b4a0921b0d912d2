import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { crashFixture, fileOverApi, killHard } from '../helpers/crash-fixture.js';
import { freePort, type ServerProcess, startServer } from '../helpers/processes.js';
import { startSmtpPeer } from '../helpers/smtp-peer.js';

/**
 * Issue 21: "a killed process loses none". A real server process files reports over HTTP; each
 * queues a team mail to the administrator. The SMTP server reads the messages and never answers,
 * so the sends are in flight when the process is killed with SIGKILL (no shutdown hook runs). After
 * a restart, with the SMTP server answering again, every acknowledged report's mail arrives once its
 * claim's lease has run out (MAIL_TIMEOUT_SECONDS=2: the lease is 17 s).
 */
describe('e-mail across a crash', () => {
  let fx: Awaited<ReturnType<typeof crashFixture>>;
  let peer: Awaited<ReturnType<typeof startSmtpPeer>>;
  let server: ServerProcess | undefined;
  let env: Record<string, string> = {};

  before(async () => {
    peer = await startSmtpPeer();
    fx = await crashFixture();
    env = { ...fx.env, SMTP_URL: peer.url, MAIL_FROM: 'cradle@cradle.test', MAIL_MAX_PER_RECIPIENT_PER_HOUR: '1000', MAIL_TIMEOUT_SECONDS: '2' };
  });

  after(async () => {
    await server?.stop();
    await peer.stop();
    await fx.cleanup();
  });

  it("sends every acknowledged report's mail after SIGKILL and restart", { timeout: 150_000 }, async () => {
    peer.hold();
    const port = await freePort();
    server = await startServer({ ...env, PUBLIC_URL: `http://127.0.0.1:${port}` }, { port, production: true, inheritDatabase: true });
    const file = (i: number) => fileOverApi(server!, fx.key, `Mail crash-test report ${i}`);
    const acknowledged: string[] = [];
    for (let i = 0; i < 8; i++) {
      const id = await file(i);
      assert.ok(id, `report ${i} was refused before the crash`);
      acknowledged.push(id);
    }
    // Kill as soon as a send is in flight (its data read, unanswered), while more filings race.
    for (let i = 0; peer.held() === 0; i++) {
      assert.ok(i < 400, 'no mail reached the SMTP server before the crash');
      await sleep(25);
    }
    const racing = Array.from({ length: 6 }, (_, i) => file(100 + i));
    await killHard(server);
    for (const id of await Promise.all(racing)) if (id) acknowledged.push(id);
    assert.equal(peer.arrived.length, 0, 'nothing was answered before the crash');
    peer.release();

    const port2 = await freePort();
    server = await startServer({ ...env, PUBLIC_URL: `http://127.0.0.1:${port2}` }, { port: port2, production: true, inheritDatabase: true });
    const mailed = () =>
      new Set(peer.arrived.filter((m) => m.envelopeTo.includes(fx.tenant.admin.email)).map((m) => /report (\S+)/.exec(m.parsed.subject ?? '')?.[1]));
    for (let waited = 0; !acknowledged.every((id) => mailed().has(id)); waited += 250) {
      assert.ok(waited < 90_000, `no mail after restart for: ${acknowledged.filter((id) => !mailed().has(id)).join(', ')}`);
      await sleep(250);
    }
    assert.ok(acknowledged.length >= 8);
    for (const m of peer.arrived) assert.doesNotMatch(m.raw, /Mail crash-test report/, 'no report text in any mail');
  });
});
