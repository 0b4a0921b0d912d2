import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { postWebhook } from '../../../src/modules/webhooks/post-webhook.js';
import { nextRetryDelay, RETRY_DELAYS_SECONDS } from '../../../src/modules/webhooks/retry-schedule.js';
import { generateWebhookSecret, webhookHeaders } from '../../../src/modules/webhooks/signing.js';

describe('Standard Webhooks signing, verified by the standardwebhooks package', () => {
  const body = JSON.stringify({ type: 'vulnerability.reported', timestamp: '2026-11-22T10:00:00.000Z', data: { submissionId: 'x' } });
  it('signs with a generated whsec_ secret as its base64-decoded bytes', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const h = webhookHeaders('msg_1', body, [secret], new Date());
    assert.deepEqual(new Webhook(secret).verify(body, h), JSON.parse(body));
  });
  it('signs with any other secret as its UTF-8 bytes', () => {
    const secret = 'my shared secret ✓';
    const h = webhookHeaders('msg_2', body, [secret], new Date());
    assert.deepEqual(new Webhook(Buffer.from(secret, 'utf8').toString('base64')).verify(body, h), JSON.parse(body));
  });
  it('carries one signature per secret during a rotation, each verifying', () => {
    const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
    const h = webhookHeaders('msg_3', body, [a, b], new Date());
    assert.equal(h['webhook-signature']?.split(' ').length, 2);
    new Webhook(a).verify(body, h);
    new Webhook(b).verify(body, h);
  });
  it('is refused by the verifier for a tampered body or a stale timestamp', () => {
    const secret = generateWebhookSecret();
    const h = webhookHeaders('msg_4', body, [secret], new Date());
    assert.throws(() => new Webhook(secret).verify(`${body} `, h));
    const old = webhookHeaders('msg_4', body, [secret], new Date(Date.now() - 10 * 60_000));
    assert.throws(() => new Webhook(secret).verify(body, old));
  });
});

describe('retry schedule', () => {
  it('spans about three days with +-20 % jitter and ends after the last delay', () => {
    const total = RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0);
    assert.ok(total > 2.9 * 86400 && total < 3.5 * 86400, `total ${total}`);
    assert.equal(
      nextRetryDelay(1, undefined, () => 0),
      4,
    );
    assert.ok(Math.abs((nextRetryDelay(1, undefined, () => 1) ?? 0) - 6) < 1e-9);
    assert.equal(nextRetryDelay(RETRY_DELAYS_SECONDS.length + 1), null);
  });
  it('honours a longer Retry-After, capped at a day, and scales for tests', () => {
    assert.equal(
      nextRetryDelay(1, 120, () => 0.5),
      120,
    );
    assert.equal(
      nextRetryDelay(1, 10 * 86400, () => 0.5),
      86400,
    );
    assert.equal(
      nextRetryDelay(2, undefined, () => 0.5, 0.001),
      0.3,
    );
  });
});

describe('postWebhook', () => {
  let server: Server;
  let port: number;
  const seen: { headers: IncomingMessage['headers']; body: string; url: string }[] = [];
  type Reply = { status: number; headers?: Record<string, string>; body?: string };
  let respond: (url: string) => Reply = () => ({ status: 204 });
  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ headers: req.headers, body, url: req.url ?? '' });
        const r = respond(req.url ?? '');
        res.writeHead(r.status, r.headers ?? {});
        res.end(r.body ?? '');
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('posts the signed JSON body and reports a 2xx as success', async () => {
    const secret = generateWebhookSecret();
    const body = '{"type":"t","timestamp":"2026-11-22T00:00:00.000Z","data":{}}';
    const r = await postWebhook(`http://127.0.0.1:${port}/ok`, webhookHeaders('msg_a', body, [secret], new Date()), body, { allowPrivate: true });
    assert.equal(r.status, 204);
    assert.equal(r.ok, true);
    const got = seen.at(-1);
    assert.equal(got?.body, body);
    assert.equal(got?.headers['content-type'], 'application/json');
    new Webhook(secret).verify(got?.body ?? '', got?.headers as Record<string, string>);
  });

  it('does not follow redirects, reads Retry-After, and caps the response body', async () => {
    respond = (u): Reply =>
      u === '/redirect'
        ? { status: 302, headers: { location: `http://127.0.0.1:${port}/elsewhere` } }
        : u === '/busy'
          ? { status: 503, headers: { 'retry-after': '120' } }
          : { status: 500, body: 'x'.repeat(100_000) };
    const before = seen.length;
    const r = await postWebhook(`http://127.0.0.1:${port}/redirect`, {}, '{}', { allowPrivate: true });
    assert.equal(r.ok, false);
    assert.equal(r.status, 302);
    assert.match(r.error ?? '', /not followed/);
    assert.equal(seen.length, before + 1, 'the redirect target was never requested');
    const busy = await postWebhook(`http://127.0.0.1:${port}/busy`, {}, '{}', { allowPrivate: true });
    assert.equal(busy.retryAfterSeconds, 120);
    const big = await postWebhook(`http://127.0.0.1:${port}/big`, {}, '{}', { allowPrivate: true, maxBodyBytes: 1000 });
    assert.equal(big.responseSnippet?.length, 1000);
    respond = () => ({ status: 204 });
  });

  it('refuses loopback targets, by literal and by name, without connecting', async () => {
    const before = seen.length;
    for (const u of [`http://127.0.0.1:${port}/x`, `http://2130706433:${port}/x`, `http://[::ffff:127.0.0.1]:${port}/x`, `http://localhost:${port}/x`]) {
      const r = await postWebhook(u, {}, '{}', { allowPrivate: false });
      assert.equal(r.ok, false, u);
      assert.equal(r.status, null, u);
    }
    assert.equal(seen.length, before, 'the loopback listener saw no request');
  });

  it('reports a refused connection and a timeout as failures without a status', async () => {
    const closed = await postWebhook('http://127.0.0.1:1/x', {}, '{}', { allowPrivate: true });
    assert.equal(closed.status, null);
    assert.match(closed.error ?? '', /ECONNREFUSED/);
    respond = () => ({ status: 200 });
    const slow = createServer(() => {}); // accepts, never answers
    slow.listen(0, '127.0.0.1');
    await once(slow, 'listening');
    const r = await postWebhook(`http://127.0.0.1:${(slow.address() as { port: number }).port}/`, {}, '{}', { allowPrivate: true, totalTimeoutMs: 300 });
    assert.equal(r.ok, false);
    assert.match(r.error ?? '', /timed out/);
    slow.closeAllConnections();
    slow.close();
  });
});
