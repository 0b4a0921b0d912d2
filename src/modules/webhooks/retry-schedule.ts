/**
 * Delays before each retry (after attempt 1, 2, ...): about three days in all, as the Standard
 * Webhooks guidance suggests. Attempt 10 is the last; then the delivery is dead-lettered.
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 14 * 3600, 20 * 3600, 24 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/**
 * Seconds until the next attempt after `attempt` failed, or null when it was the last. +-20 %
 * jitter spreads retries of many deliveries that failed together; a receiver's Retry-After is
 * honoured when it asks for longer (capped at a day). `scale` compresses the schedule in tests.
 */
export function nextRetryDelay(attempt: number, retryAfterSeconds?: number, random: () => number = Math.random, scale = 1): number | null {
  const base = RETRY_DELAYS_SECONDS[attempt - 1];
  if (base === undefined) return null;
  const jittered = base * (0.8 + 0.4 * random());
  const wanted = Math.min(retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS);
  return Math.max(jittered, wanted) * scale;
}
