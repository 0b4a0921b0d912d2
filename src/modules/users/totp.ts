import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';

/**
 * TOTP (RFC 6238) as every authenticator app reads it: HMAC-SHA-1, 6 digits, 30-second steps,
 * a 160-bit seed (RFC 4226 section 4 recommends 160 bits). A code is accepted one step either side
 * of now (RFC 6238 section 5.2: network and clock delay), and only for a step later than the last
 * accepted one, so a code cannot be used twice.
 */
const PERIOD = 30;
const ISSUER = 'Cradle';

const totpOf = (base32: string, label = 'account'): TOTP =>
  new TOTP({ issuer: ISSUER, label, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: Secret.fromBase32(base32) });

/** A fresh seed, base32 (what the person may type into an app). */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32;

/** The `otpauth://` URI for an app, and the same as a QR code (SVG of rectangles: no text, no script, no style). */
export function enrolmentOf(base32: string, email: string): { uri: string; qrSvg: string } {
  const uri = totpOf(base32, email).toString();
  return { uri, qrSvg: renderSVG(uri, { border: 2 }) };
}

/** A code as people type it: digits, maybe with a space in the middle. */
export const looksLikeTotp = (code: string): boolean => /^\d{3}\s?\d{3}$/.test(code.trim());

/**
 * The time step a code belongs to, or undefined when it is wrong (the comparison inside otpauth is
 * constant-time). The caller refuses a step not later than the last accepted one.
 */
export function totpStep(base32: string, code: string, now: Date): number | undefined {
  const token = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(token)) return undefined;
  const delta = totpOf(base32).validate({ token, timestamp: now.getTime(), window: 1 });
  if (delta === null) return undefined;
  return TOTP.counter({ period: PERIOD, timestamp: now.getTime() }) + delta;
}
