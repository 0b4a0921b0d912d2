import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ErrorCode } from '../kernel/errors.js';
import { type RateLimitDecision, type RateLimiter, type RateLimitPolicy, rateLimitHeaders } from '../kernel/rate-limit.js';
import { addressBucket } from './client-address.js';

export type IntakeRateLimits = { bulk: RateLimitPolicy; reportForm: RateLimitPolicy; ackAddress: RateLimitPolicy };

/**
 * Per-address limits of the anonymous intake surfaces (IPv6 counted per /64):
 * - bulk: 3 batches a minute (docs/intake.md "Limits"); every request counts, even a malformed one;
 * - reportForm: 10 filed reports per 10 minutes, our choice: generous for a researcher filing a
 *   series by hand, costly for a spammer. Only submissions that would file count, so fixing
 *   validation errors never uses the allowance up;
 * - ackAddress: 5 e-mail opt-ins per hour per destination address (lower-cased, every company
 *   together), so many client addresses cannot aim the form's acknowledgements at one mailbox
 *   (issue 32, finding 4). Counted with the client's allowance, only for a submission that would file.
 */
export const DEFAULT_INTAKE_RATE_LIMITS: IntakeRateLimits = {
  bulk: { name: 'bulk', limit: 3, windowMs: 60_000 },
  reportForm: { name: 'report-form', limit: 10, windowMs: 10 * 60_000 },
  ackAddress: { name: 'ack-address', limit: 5, windowMs: 3_600_000 },
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

/** The destination address had its opt-ins of the hour: the report can still be filed without e-mail updates. */
export const ackAddressLimited = (d: RateLimitDecision): AppError =>
  new AppError(
    ErrorCode.RATE_LIMITED,
    `this e-mail address was given for updates too often in the last hour; untick e-mail updates to file now, or retry in ${d.retryAfterSeconds} seconds`,
    { retryAfterSeconds: d.retryAfterSeconds },
  );
