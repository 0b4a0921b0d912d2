import { hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** Primary keys: random UUIDs (122 bits of entropy), unguessable and safe to show. */
export const newId = (): string => randomUUID();

/** A random secret of `bytes` bytes as lowercase hex (API keys, session tokens, set-up tokens). */
export const randomHex = (bytes: number): string => randomBytes(bytes).toString('hex');

/**
 * SHA-256 hex digest: only digests of bearer secrets are ever stored. The one-shot `hash` (no Hash
 * object) takes half the time of createHash for a key: every API request digests its key.
 */
export const sha256Hex = (s: string): string => hash('sha256', s, 'hex');

/** Constant-time string comparison (lengths are compared first; length is not secret here). */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Whether a path id can name a row at all: anything else is simply not found (never a database error). */
export const isUuid = (s: string): boolean => UUID.test(s);
