import { randomHex, sha256Hex } from '../../kernel/ids.js';

/**
 * A new key value: 32 bytes from the CSPRNG as 64 lowercase hex (docs/access.md "API keys"). Only
 * the SHA-256 digest is stored; a digest is enough because the value has 256 bits of entropy, so a
 * stolen table cannot be brute-forced the way password hashes can.
 */
export function newKeyValue(): { value: string; digest: string; hint: string } {
  const value = randomHex(32);
  return { value, digest: sha256Hex(value), hint: value.slice(-4) };
}
