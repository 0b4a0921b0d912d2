import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createMemoryRateLimiter, decide, type RateLimitDecision, type RateLimiter, type RateLimitPolicy } from './rate-limit.js';

/**
 * The same exact sliding log as the memory store, kept in one Redis sorted set per key so that
 * every instance shares one limit. One call decides every hit an instance received in one
 * event-loop turn, for all their keys: per key (KEYS[i]; ARGV window, limit and number of hits from
 * ARGV[2 + 3(i-1)]) it drops the entries that left the window, accepts as many hits as the limit
 * still allows and logs them. The script runs atomically in Redis, and takes "now" from the Redis
 * server's clock (TIME), so instances with skewed clocks still agree on the window. Returns, per
 * key, {accepted before, accepted now, oldest entry's time or -1}, then the time.
 */
const SLIDING_LOG = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i, key in ipairs(KEYS) do
  local a = 2 + (i - 1) * 3
  local window = tonumber(ARGV[a])
  local limit = tonumber(ARGV[a + 1])
  local hits = tonumber(ARGV[a + 2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local n = redis.call('ZCARD', key)
  local accepted = math.max(0, math.min(hits, limit - n))
  local j = 0
  while j < accepted do
    local members = {}
    for k = j + 1, math.min(accepted, j + 1000) do
      members[#members + 1] = now
      members[#members + 1] = now .. ':' .. ARGV[1] .. ':' .. i .. ':' .. k
    end
    redis.call('ZADD', key, unpack(members))
    j = j + 1000
  end
  redis.call('PEXPIRE', key, window)
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local o = -1
  if oldest[2] then o = tonumber(oldest[2]) end
  out[#out + 1] = n
  out[#out + 1] = accepted
  out[#out + 1] = o
end
out[#out + 1] = now
return out
`;

/** At most this many keys per script call (a turn with more sends more calls). */
const MAX_KEYS_PER_CALL = 500;

export type RedisRateLimiterOptions = {
  /** Called when Redis cannot answer and the local fallback decided instead (log it). */
  onFallback?: (err: unknown) => void;
  prefix?: string;
};

type Waiting = { resolve(d: RateLimitDecision): void; nowMs: number | undefined };
type Group = { policy: RateLimitPolicy; key: string; waiting: Waiting[] };

/**
 * Redis store. The hits of one event-loop turn are decided by one script call: under load one
 * round trip and one script run serve many requests instead of one each (measured on the
 * authenticated API path: docs/performance.md). When Redis is down or slow (no answer within
 * 500 ms) the hit is decided by an in-process sliding log instead: the API stays available and
 * every instance still enforces the limit on its own, so during an outage a key can get at most
 * (instances x limit) per window. Refusing all API traffic because a counter store is down was
 * judged worse (docs/access.md).
 */
export function createRedisRateLimiter(url: string, opts: RedisRateLimiterOptions = {}): RateLimiter & { redis: Redis; readonly stats: { calls: number } } {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    commandTimeout: 500,
    lazyConnect: false,
  });
  // Connection errors surface through the commands below; an unhandled 'error' event would crash us.
  redis.on('error', () => {});
  // EVALSHA, and EVAL when Redis has lost the script (a restart, SCRIPT FLUSH).
  redis.defineCommand('slidingLog', { lua: SLIDING_LOG });
  const slidingLog = (redis as unknown as { slidingLog(numKeys: number, ...args: (string | number)[]): Promise<number[]> }).slidingLog.bind(redis);
  const fallback = createMemoryRateLimiter();
  const prefix = opts.prefix ?? 'cradle:rl:';
  const nonce = randomBytes(6).toString('hex');
  const stats = { calls: 0 };
  let seq = 0;
  // The hits waiting for this turn's call, by Redis key.
  let turn: Map<string, Group> | undefined;

  /** Decides one call's groups: the first `accepted` hits of a key in arrival order are allowed. */
  async function decideInRedis(groups: Group[]): Promise<void> {
    const args: (string | number)[] = [`${nonce}:${++seq}`];
    for (const g of groups) args.push(g.policy.windowMs, g.policy.limit, g.waiting.length);
    stats.calls++;
    try {
      const out = await slidingLog(groups.length, ...groups.map((g) => `${prefix}${g.policy.name}:${g.key}`), ...args);
      const now = Number(out[groups.length * 3]);
      groups.forEach((g, i) => {
        const before = Number(out[i * 3]);
        const accepted = Number(out[i * 3 + 1]);
        const oldest = Number(out[i * 3 + 2]);
        const oldestMs = oldest < 0 ? undefined : oldest;
        g.waiting.forEach((w, j) => w.resolve(decide(g.policy, before + Math.min(j, accepted), oldestMs, now, j < accepted)));
      });
    } catch (err) {
      for (const g of groups) {
        for (const w of g.waiting) {
          opts.onFallback?.(err);
          w.resolve(await fallback.hit(g.policy, g.key, w.nowMs));
        }
      }
    }
  }

  function flush(): void {
    const groups = [...(turn?.values() ?? [])];
    turn = undefined;
    for (let i = 0; i < groups.length; i += MAX_KEYS_PER_CALL) void decideInRedis(groups.slice(i, i + MAX_KEYS_PER_CALL));
  }

  return {
    redis,
    stats,
    hit(policy, key, nowMs) {
      return new Promise<RateLimitDecision>((resolve) => {
        if (!turn) {
          turn = new Map();
          setImmediate(flush);
        }
        const id = `${policy.name}:${policy.limit}:${policy.windowMs}:${key}`;
        let g = turn.get(id);
        if (!g) turn.set(id, (g = { policy, key, waiting: [] }));
        g.waiting.push({ resolve, nowMs });
      });
    },
    async close() {
      await fallback.close();
      redis.disconnect();
    },
  };
}
