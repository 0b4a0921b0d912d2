import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '../kernel/errors.js';
import { type RateLimitDecision, type RateLimiter, type RateLimitPolicy, rateLimitHeaders } from '../kernel/rate-limit.js';
import { addressBucket } from './client-address.js';

export type IntakeRateLimits = { bulk: RateLimitPolicy; reportForm: RateLimitPolicy };

/**
 * Per-address limits of the anonymous intake surfaces (IPv6 counted per /64):
 * - bulk: 3 batches a minute (docs/intake.md "Limits"); every request counts, even a malformed one;
 * - reportForm: 10 filed reports per 10 minutes, our choice: generous for a researcher filing a
 *   series by hand, costly for a spammer. Only submissions that would file count, so fixing
 *   validation errors never uses the allowance up.
 */
export const DEFAULT_INTAKE_RATE_LIMITS: IntakeRateLimits = {
  bulk: { name: 'bulk', limit: 3, windowMs: 60_000 },
  reportForm: { name: 'report-form', limit: 10, windowMs: 10 * 60_000 },
};

/**
 * Request body limits (413 beyond them). They fit every field at its maximum: the form even when
 * URL-encoding triples non-ASCII text, the bulk batch 20 such items in JSON.
 */
export const INTAKE_BODY_LIMITS = { reportForm: 640 * 1024, bulk: 4 * 1024 * 1024 } as const;

/** Counts one hit for the client's address bucket, sets the RateLimit fields, and returns the decision. */
export async function countHit(limiter: RateLimiter, policy: RateLimitPolicy, req: FastifyRequest, reply: FastifyReply): Promise<RateLimitDecision> {
  const d = await limiter.hit(policy, addressBucket(req.ip));
  reply.headers(rateLimitHeaders(policy, d));
  return d;
}

export const rateLimited = (d: RateLimitDecision, what: string): AppError =>
  new AppError(ErrorCode.RATE_LIMITED, `too many ${what} from your network; retry in ${d.retryAfterSeconds} seconds`, {
    retryAfterSeconds: d.retryAfterSeconds,
  });
