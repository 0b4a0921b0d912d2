import { BoundedMap } from '../kernel/bounded-map.js';
import type { RateLimiter, RateLimitPolicy } from '../kernel/rate-limit.js';
import { addressBucket } from './client-address.js';

/**
 * Requests to `/api/*` refused for want of a known key, per client address (IPv6 per /64): beyond
 * this, an address is held off until its window frees a slot (issue 24). Counted in the shared
 * limiter, so several instances count together; the hold itself is remembered per instance, so a
 * held request costs no limiter call, no key lookup and no scan of its body.
 */
export const unauthenticatedPolicy = (limit: number): RateLimitPolicy => ({ name: 'api-unauthenticated', limit, windowMs: 60_000 });

export type RefusalGate = {
  /** Seconds the address is still held off, or 0. */
  heldFor(ip: string, nowMs?: number): number;
  /** Counts one refusal of the address; holds it off once the policy's limit is reached. */
  count(ip: string): Promise<void>;
};

export function createRefusalGate(limiter: RateLimiter, policy: RateLimitPolicy): RefusalGate {
  // Bounded: an attacker rotating addresses cannot grow it; a forgotten hold is counted again.
  const held = new BoundedMap<string, number>(50_000);
  return {
    heldFor(ip, nowMs = Date.now()) {
      // The authenticated path's usual case: nobody held, nothing to compute.
      if (held.size === 0) return 0;
      const bucket = addressBucket(ip);
      const until = held.get(bucket);
      if (until === undefined) return 0;
      if (until <= nowMs) {
        held.delete(bucket);
        return 0;
      }
      return Math.ceil((until - nowMs) / 1000);
    },
    async count(ip) {
      const bucket = addressBucket(ip);
      const d = await limiter.hit(policy, bucket);
      // The limit-th refusal already holds: the next request would only be refused by the limiter.
      if (!d.allowed || d.remaining === 0) held.set(bucket, Date.now() + Math.max(1, d.allowed ? d.resetSeconds : d.retryAfterSeconds) * 1000);
    },
  };
}
