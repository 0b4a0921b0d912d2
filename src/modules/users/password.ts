import { assertPasswordPolicy, type PasswordContext } from './password-policy.js';
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

// OWASP's scrypt profile N=2^15, r=8, p=3 (32 MiB per hash). Parameters are stored with the
// hash so they can be raised later without breaking existing passwords.
const N = 2 ** 15;
const R = 8;
const P = 3;
const KEYLEN = 32;
const MAXMEM = 128 * N * R * 2;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEYLEN, { N: n, r, p, maxmem: 128 * n * r * 2 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/**
 * The one way a password is set (set-up, operator CLI, change of password, an invitation): the
 * policy with the person's and company's context, then the hash.
 */
export async function hashNewPassword(password: string, context: PasswordContext, field = 'password'): Promise<string> {
  assertPasswordPolicy(password, context, field);
  return hashPassword(password);
}

/** `scrypt$N$r$p$salt$hash` with base64url salt and hash. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

// Verifying against this keeps the time of an unknown-user sign-in close to a known one's.
let dummyHash: Promise<string> | undefined;
export const dummyPasswordHash = (): Promise<string> => (dummyHash ??= hashPassword('not a password'));

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, n, r, p, salt, hash] = stored.split('$');
  if (alg !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const nn = Number(n);
  if (!Number.isInteger(nn) || 128 * nn * Number(r) * 2 > MAXMEM * 8) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), nn, Number(r), Number(p));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
