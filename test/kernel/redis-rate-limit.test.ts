import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { createRedisRateLimiter } from '../../src/kernel/redis-rate-limit.js';

const url = process.env.REDIS_URL;
const skip = url ? false : 'REDIS_URL is not set (the PostgreSQL + Redis pass runs this)';

describe('Redis sliding-log store', { skip }, () => {
  const limiter = url ? createRedisRateLimiter(url, { prefix: `cradle:test:${randomBytes(6).toString('hex')}:` }) : undefined;
  after(() => limiter?.close());
  const policy = { name: 'key', limit: 5, windowMs: 60_000 };
  // The limiter falls back to memory while its connection is not ready (and refuses direct commands):
  // wait for it, so these tests exercise Redis itself even when a loaded machine slows the connect.
  const connected = async () => {
    const l = limiter!;
    if (l.redis.status !== 'ready') await once(l.redis, 'ready');
    return l;
  };

  it('accepts exactly the limit and refuses the rest, with the remaining count', async () => {
    const l = await connected();
    const decisions = await Promise.all(Array.from({ length: 8 }, () => l.hit(policy, 'k1')));
    assert.equal(decisions.filter((d) => d.allowed).length, 5);
    const refused = decisions.filter((d) => !d.allowed);
    assert.equal(refused.length, 3);
    for (const d of refused) {
      assert.equal(d.remaining, 0);
      assert.ok(d.retryAfterSeconds >= 1 && d.retryAfterSeconds <= 60);
    }
    assert.deepEqual(
      decisions
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort(),
      [0, 1, 2, 3, 4],
    );
  });

  it("decides one turn's hits, for every key, in one script call, as if they came one at a time", async () => {
    const l = await connected();
    const three = { name: 'turn', limit: 3, windowMs: 60_000 };
    assert.ok((await l.hit(three, 'b')).allowed, 'b already has one hit in its window');
    const calls = l.stats.calls;
    const [a, b, c] = await Promise.all([
      Promise.all(Array.from({ length: 5 }, () => l.hit(three, 'a'))),
      Promise.all(Array.from({ length: 4 }, () => l.hit(three, 'b'))),
      Promise.all(Array.from({ length: 2 }, () => l.hit(three, 'c'))),
    ]);
    assert.equal(l.stats.calls - calls, 1, 'one call for the turn');
    // In arrival order: the first hits take what the limit leaves, each seeing the ones before it.
    assert.deepEqual(
      a.map((d) => [d.allowed, d.remaining]),
      [
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
      ],
    );
    assert.deepEqual(
      b.map((d) => [d.allowed, d.remaining]),
      [
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
      ],
    );
    assert.deepEqual(
      c.map((d) => [d.allowed, d.remaining]),
      [
        [true, 2],
        [true, 1],
      ],
    );
    for (const d of [...a, ...b].filter((x) => !x.allowed)) assert.ok(d.retryAfterSeconds >= 1 && d.retryAfterSeconds <= 60);
    const prefix = (await l.redis.keys('cradle:test:*turn:a'))[0]!.slice(0, -'turn:a'.length);
    assert.deepEqual(
      [await l.redis.zcard(`${prefix}turn:a`), await l.redis.zcard(`${prefix}turn:b`), await l.redis.zcard(`${prefix}turn:c`)],
      [3, 3, 2],
      'the log holds exactly the accepted hits',
    );
  });

  it('splits a turn with more keys than one call carries, still deciding every hit in Redis', async () => {
    const l = await connected();
    const one = { name: 'many', limit: 1, windowMs: 60_000 };
    const calls = l.stats.calls;
    const decisions = await Promise.all(Array.from({ length: 1001 }, (_, i) => l.hit(one, `k${i % 501}`)));
    assert.equal(l.stats.calls - calls, 2, '501 keys: two calls');
    assert.equal(decisions.filter((d) => d.allowed).length, 501, 'one accepted per key');
  });

  it('lets hits through again once they leave the window, and expires its keys', async () => {
    const l = await connected();
    const short = { name: 'short', limit: 2, windowMs: 300 };
    assert.ok((await l.hit(short, 'k2')).allowed);
    assert.ok((await l.hit(short, 'k2')).allowed);
    assert.equal((await l.hit(short, 'k2')).allowed, false);
    await new Promise((r) => setTimeout(r, 400));
    assert.ok((await l.hit(short, 'k2')).allowed);
    const keys = await l.redis.keys('cradle:test:*short:k2');
    assert.equal(keys.length, 1);
    const ttl = await l.redis.pttl(keys[0]!);
    assert.ok(ttl > 0 && ttl <= 300, String(ttl));
  });
});

describe('Redis store after Redis lost its scripts (a restart, SCRIPT FLUSH)', { skip }, () => {
  it('loads the script again within the pipelined hits and keeps deciding in Redis', async () => {
    let fallbacks = 0;
    const prefix = `cradle:test:${randomBytes(6).toString('hex')}:`;
    const l = createRedisRateLimiter(url!, { prefix, onFallback: () => fallbacks++ });
    try {
      if (l.redis.status !== 'ready') await once(l.redis, 'ready');
      const policy = { name: 'flush', limit: 3, windowMs: 60_000 };
      assert.ok((await l.hit(policy, 'k')).allowed);
      await l.redis.script('FLUSH');
      // Concurrent hits travel as one pipeline; the script is gone from Redis.
      const decisions = await Promise.all(Array.from({ length: 4 }, () => l.hit(policy, 'k')));
      assert.deepEqual(decisions.map((d) => d.allowed).sort(), [false, false, true, true]);
      assert.equal(fallbacks, 0, 'decided in Redis, not by the in-memory fallback');
      assert.equal(await l.redis.zcard(`${prefix}flush:k`), 3, 'the shared log holds exactly the accepted hits');
    } finally {
      await l.close();
    }
  });
});

describe('Redis store while Redis is down', () => {
  it('falls back to a per-instance in-memory limit and reports it', async () => {
    let fallbacks = 0;
    // Nothing listens on port 1: every command fails at once.
    const l = createRedisRateLimiter('redis://127.0.0.1:1', { onFallback: () => fallbacks++ });
    try {
      const policy = { name: 'key', limit: 2, windowMs: 60_000 };
      const d = [await l.hit(policy, 'x'), await l.hit(policy, 'x'), await l.hit(policy, 'x')];
      assert.deepEqual(
        d.map((x) => x.allowed),
        [true, true, false],
      );
      assert.equal(fallbacks, 3);
    } finally {
      await l.close();
    }
  });
});
