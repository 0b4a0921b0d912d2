/**
 * Rate limiting: a sliding log, so no more than `limit` hits are accepted in ANY window of
 * `windowMs` (a fixed window lets up to twice the limit through around its edge). Refused hits
 * are not recorded, so a client that keeps hammering is not locked out for longer.
 *
 * The store is in memory by default; with REDIS_URL a Redis store implements the same interface
 * so that several instances share one limit.
 */
export type RateLimitPolicy = {
  /** Name used in the IETF RateLimit fields, e.g. "key" or "bulk". */
  name: string;
  limit: number;
  windowMs: number;
};

export type RateLimitDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted hit leaves the window (one slot frees up). */
  resetSeconds: number;
  /** Seconds the caller should wait before retrying; 0 when allowed. */
  retryAfterSeconds: number;
};

export type RateLimiter = {
  hit(policy: RateLimitPolicy, key: string, nowMs?: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
};

/** Decides from the timestamps (ms) of the hits accepted so far inside the window, oldest first. */
export function decide(policy: RateLimitPolicy, acceptedInWindow: number, oldestMs: number | undefined, nowMs: number, allowed: boolean): RateLimitDecision {
  const used = acceptedInWindow + (allowed ? 1 : 0);
  const resetMs = oldestMs === undefined ? policy.windowMs : Math.max(0, oldestMs + policy.windowMs - nowMs);
  const resetSeconds = Math.max(allowed ? 0 : 1, Math.ceil(resetMs / 1000));
  return {
    allowed,
    limit: policy.limit,
    remaining: Math.max(0, policy.limit - used),
    resetSeconds,
    retryAfterSeconds: allowed ? 0 : resetSeconds,
  };
}

/**
 * One key's accepted hits, oldest first, from `head` on. Expired hits are passed over by moving
 * `head`, and the array is compacted only once half of it is behind `head`: a hit costs O(1)
 * amortised however high the limit (a splice from the front moved the whole log on every hit, 60 µs
 * at 600,000 hits in the window, which a limit raised for a bench or a busy integration reaches).
 */
type HitLog = { ts: number[]; head: number };

/** In-process sliding log. Memory is bounded: at most `limit` timestamps per active key (twice that before a compaction). */
export function createMemoryRateLimiter(): RateLimiter {
  const logs = new Map<string, HitLog>();
  let sweeps = 0;
  const sweep = (nowMs: number, maxWindow: number) => {
    for (const [k, log] of logs) if ((log.ts.at(-1) ?? 0) <= nowMs - maxWindow) logs.delete(k);
  };
  let maxWindow = 0;
  return {
    async hit(policy, key, nowMs = Date.now()) {
      maxWindow = Math.max(maxWindow, policy.windowMs);
      if (++sweeps % 10_000 === 0) sweep(nowMs, maxWindow);
      const id = `${policy.name}\u0000${key}`;
      let log = logs.get(id);
      if (!log) {
        log = { ts: [], head: 0 };
        logs.set(id, log);
      }
      const cutoff = nowMs - policy.windowMs;
      const { ts } = log;
      while (log.head < ts.length && (ts[log.head] as number) <= cutoff) log.head++;
      if (log.head > 64 && log.head * 2 >= ts.length) {
        log.ts = ts.slice(log.head);
        log.head = 0;
      }
      const inWindow = log.ts.length - log.head;
      const allowed = inWindow < policy.limit;
      const decision = decide(policy, inWindow, log.ts[log.head], nowMs, allowed);
      if (allowed) log.ts.push(nowMs);
      return decision;
    },
    async close() {
      logs.clear();
    },
  };
}

/** IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers), as docs/access.md "Rate limit" shows them. */
export function rateLimitHeaders(policy: RateLimitPolicy, d: RateLimitDecision): Record<string, string> {
  const h: Record<string, string> = {
    'ratelimit-policy': `"${policy.name}";q=${policy.limit};w=${Math.round(policy.windowMs / 1000)}`,
    ratelimit: `"${policy.name}";r=${d.remaining};t=${d.resetSeconds}`,
  };
  if (!d.allowed) h['retry-after'] = String(d.retryAfterSeconds);
  return h;
}
