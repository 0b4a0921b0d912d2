import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks 1.0 signing (docs/architecture.md "Events and webhooks"): a secret starting
 * with `whsec_` is used as its base64-decoded bytes; any other secret as its UTF-8 bytes. Written
 * here rather than taken from the `standardwebhooks` package: signing is one HMAC, and the
 * package's constructor treats every secret as base64, which is not our rule for other secrets. The
 * package verifies in our tests.
 */
export function secretKeyBytes(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export const generateWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` for each secret, space-separated (rotation). */
export function signatureHeader(id: string, timestampSeconds: number, body: string, secrets: readonly string[]): string {
  return secrets.map((s) => `v1,${createHmac('sha256', secretKeyBytes(s)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`).join(' ');
}

/** The three Standard Webhooks headers of one attempt (fresh timestamp each time, same id). */
export function webhookHeaders(id: string, body: string, secrets: readonly string[], now: Date): Record<string, string> {
  const ts = Math.floor(now.getTime() / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signatureHeader(id, ts, body, secrets) };
}
