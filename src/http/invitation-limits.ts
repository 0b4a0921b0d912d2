import type { RateLimitDecision, RateLimiter, RateLimitPolicy } from '../kernel/rate-limit.js';

/**
 * Invitations (and sending one again) mail an address the company chose, under its name: issue 32
 * finding 4 saw 40 go out in one second. Our choice of bounds: a team grows by a few people at a
 * time, so 10 per inviter per 10 minutes and 30 per company per hour leave room for onboarding a
 * group and none for spam. Each counts only while it is not refused.
 */
export const INVITATION_RATE_LIMITS = {
  inviter: { name: 'invite-inviter', limit: 10, windowMs: 10 * 60_000 },
  company: { name: 'invite-company', limit: 30, windowMs: 3_600_000 },
} as const satisfies Record<string, RateLimitPolicy>;

/** Counts one invitation for the inviter, then the company; returns the refusal, if either refused. */
export async function invitationRefusal(limiter: RateLimiter, companyId: string, userId: string): Promise<RateLimitDecision | undefined> {
  const inviter = await limiter.hit(INVITATION_RATE_LIMITS.inviter, `${companyId}:${userId}`);
  if (!inviter.allowed) return inviter;
  const company = await limiter.hit(INVITATION_RATE_LIMITS.company, companyId);
  return company.allowed ? undefined : company;
}
