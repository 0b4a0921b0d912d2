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

/** In-process sliding log. Memory is bounded: at most `limit` timestamps per active key. */
export function createMemoryRateLimiter(): RateLimiter {
  const logs = new Map<string, number[]>();
  let sweeps = 0;
  const sweep = (nowMs: number, maxWindow: number) => {
    for (const [k, ts] of logs) if ((ts.at(-1) ?? 0) <= nowMs - maxWindow) logs.delete(k);
  };
  let maxWindow = 0;
  return {
    async hit(policy, key, nowMs = Date.now()) {
      maxWindow = Math.max(maxWindow, policy.windowMs);
      if (++sweeps % 10_000 === 0) sweep(nowMs, maxWindow);
      const id = `${policy.name}\u0000${key}`;
      const ts = logs.get(id) ?? [];
      const cutoff = nowMs - policy.windowMs;
      let drop = 0;
      while (drop < ts.length && (ts[drop] as number) <= cutoff) drop++;
      if (drop > 0) ts.splice(0, drop);
      const allowed = ts.length < policy.limit;
      const decision = decide(policy, ts.length, ts[0], nowMs, allowed);
      if (allowed) ts.push(nowMs);
      if (ts.length > 0) logs.set(id, ts);
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
