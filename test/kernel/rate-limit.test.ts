import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressBucket } from '../../src/http/client-address.js';
import { createMemoryRateLimiter, rateLimitHeaders } from '../../src/kernel/rate-limit.js';

const policy = { name: 'bulk', limit: 3, windowMs: 60_000 };

describe('memory rate limiter (sliding log)', () => {
  it('accepts the limit, then refuses with the wait until the oldest hit leaves the window', async () => {
    const rl = createMemoryRateLimiter();
    const t0 = 1_000_000;
    const d = [await rl.hit(policy, 'a', t0), await rl.hit(policy, 'a', t0 + 10_000), await rl.hit(policy, 'a', t0 + 20_000)];
    assert.deepEqual(
      d.map((x) => [x.allowed, x.remaining]),
      [
        [true, 2],
        [true, 1],
        [true, 0],
      ],
    );
    const refused = await rl.hit(policy, 'a', t0 + 30_000);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterSeconds, 30);
    assert.equal((await rl.hit(policy, 'b', t0 + 30_000)).allowed, true, 'keys are independent');
    assert.equal((await rl.hit(policy, 'a', t0 + 60_001)).allowed, true, 'a slot frees when the oldest hit ages out');
    assert.equal((await rl.hit(policy, 'a', t0 + 60_002)).allowed, false);
  });

  it('never accepts more than the limit in any window, unlike a fixed window at its edge', async () => {
    const rl = createMemoryRateLimiter();
    const p = { name: 'key', limit: 100, windowMs: 60_000 };
    const accepted: number[] = [];
    // 400 hits spread over two minutes, bunched around the minute boundary.
    for (let i = 0; i < 400; i++) {
      const t = 30_000 + Math.round((i / 400) * 60_000) + (i % 2 === 0 ? 0 : 29_000);
      if ((await rl.hit(p, 'k', t)).allowed) accepted.push(t);
    }
    accepted.sort((a, b) => a - b);
    for (let i = 0; i + 100 < accepted.length; i++) {
      assert.ok((accepted[i + 100] as number) - (accepted[i] as number) > 60_000, 'window holds at most 100');
    }
  });

  it('decides as a plain sliding log would over many compactions of a long log', async () => {
    // Hits at irregular times against a limit of 500 in 2 s: the log passes over thousands of
    // expired hits and compacts often. Every decision must equal the model's, which keeps the
    // accepted hits in a plain array and filters the window each time.
    const rl = createMemoryRateLimiter();
    const p = { name: 'key', limit: 500, windowMs: 2_000 };
    const model: number[] = [];
    let t = 0;
    for (let i = 0; i < 20_000; i++) {
      t += (i * 7919) % 11; // 0-10 ms apart: bursts faster than the limit, then slower stretches
      const inWindow = model.filter((x) => x > t - p.windowMs);
      const want = inWindow.length < p.limit;
      const got = await rl.hit(p, 'k', t);
      assert.equal(got.allowed, want, `hit ${i} at ${t}`);
      assert.equal(got.remaining, Math.max(0, p.limit - inWindow.length - (want ? 1 : 0)), `remaining at hit ${i}`);
      const reset = inWindow.length ? Math.max(0, (inWindow[0] as number) + p.windowMs - t) : p.windowMs;
      assert.equal(got.resetSeconds, Math.max(want ? 0 : 1, Math.ceil(reset / 1000)), `reset at hit ${i}`);
      model.splice(0, model.length, ...inWindow);
      if (want) model.push(t);
    }
  });

  it('formats the IETF RateLimit fields', async () => {
    const rl = createMemoryRateLimiter();
    const d = await rl.hit(policy, 'x', 0);
    assert.deepEqual(rateLimitHeaders(policy, d), { 'ratelimit-policy': '"bulk";q=3;w=60', ratelimit: '"bulk";r=2;t=60' });
    await rl.hit(policy, 'x', 1000);
    await rl.hit(policy, 'x', 2000);
    const no = await rl.hit(policy, 'x', 3000);
    assert.deepEqual(rateLimitHeaders(policy, no), { 'ratelimit-policy': '"bulk";q=3;w=60', ratelimit: '"bulk";r=0;t=57', 'retry-after': '57' });
  });
});

describe('addressBucket', () => {
  it('counts IPv6 clients per /64 and IPv4-mapped addresses as IPv4', () => {
    assert.equal(addressBucket('2001:db8:1:2:aaaa::1'), '2001:0db8:0001:0002::/64');
    assert.equal(addressBucket('2001:db8:1:2:bbbb:cccc:dddd:eeee'), '2001:0db8:0001:0002::/64');
    assert.notEqual(addressBucket('2001:db8:1:3::1'), addressBucket('2001:db8:1:2::1'));
    assert.equal(addressBucket('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(addressBucket('192.0.2.7'), '192.0.2.7');
    assert.equal(addressBucket('::1'), '0000:0000:0000:0000::/64');
  });
});
