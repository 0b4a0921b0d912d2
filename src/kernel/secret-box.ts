import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * Envelope encryption of secrets Cradle must keep usable (webhook signing secrets; later TOTP
 * seeds), so that a database dump or backup alone does not hand them out (ADR 0016).
 *
 * Each value gets its own random 256-bit data key. The value is sealed with AES-256-GCM under that
 * data key; the data key is wrapped (AES-256-GCM) by the operator's key-encryption key. Both steps
 * authenticate the format version, the key id and the caller's `aad`, which names the row the value
 * belongs to (`webhook:<id>`): a sealed value copied to another row does not open there.
 *
 * Format, ASCII: `sb1.<key id>.<wrapped data key>.<sealed value>`, the last two base64url of
 * `iv(12) | ciphertext | tag(16)`. The key id (16 hex digits) is derived from the key itself, so the
 * operator never names keys: a value sealed under an old key names it, and rotation configures the
 * new key first with the old ones after it for reading until every value is re-wrapped.
 */

export const SEALED_PREFIX = 'sb1.';

export type SecretKey = { readonly id: string; readonly key: Buffer };
/** The first key seals; every key opens what it sealed. */
export type SecretKeyring = { readonly current: SecretKey; readonly byId: ReadonlyMap<string, SecretKey> };

/** A value that cannot be sealed or opened: no key loaded, malformed, unknown key, tampered, wrong row. Never carries key material or the value. */
export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key's id: 8 bytes of an HMAC under the key, so the id reveals nothing of the key. */
export function secretKeyId(key: Buffer): string {
  return createHmac('sha256', key).update('cradle secret-box key id').digest('hex').slice(0, 16);
}

/** A keyring from raw 32-byte keys, the first sealing. */
export function makeSecretKeyring(keys: readonly Buffer[]): SecretKeyring {
  if (keys.length === 0) throw new SecretBoxError('no operator key given');
  const byId = new Map<string, SecretKey>();
  for (const key of keys) {
    if (key.length !== KEY_BYTES) throw new SecretBoxError(`an operator key must be ${KEY_BYTES} bytes, not ${key.length}`);
    const id = secretKeyId(key);
    if (!byId.has(id)) byId.set(id, { id, key: Buffer.from(key) });
  }
  const current = byId.get(secretKeyId(keys[0] as Buffer)) as SecretKey;
  return { current, byId };
}

let ring: SecretKeyring | undefined;

/** Installs the process's keyring (at start, from `loadSecretKeys`); `undefined` removes it. */
export function useSecretKeys(keyring: SecretKeyring | undefined): void {
  ring = keyring;
}

export const hasSecretKeys = (): boolean => ring !== undefined;

function keyring(): SecretKeyring {
  if (!ring) throw new SecretBoxError('no operator key is loaded (SECRETS_KEY or SECRETS_KEY_FILE)');
  return ring;
}

const b64 = (b: Buffer): string => b.toString('base64url');
// The data key's wrapping names the operator key; the value's sealing does not, so a rotation
// re-wraps the data key and leaves the sealed value as it was.
const keyHeader = (keyId: string, aad: string): Buffer => Buffer.from(`sb1\0key\0${keyId}\0${aad}`, 'utf8');
const valueHeader = (aad: string): Buffer => Buffer.from(`sb1\0value\0${aad}`, 'utf8');

function encrypt(key: Buffer, plain: Buffer, aad: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const c = createCipheriv('aes-256-gcm', key, iv).setAAD(aad);
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([iv, body, c.getAuthTag()]);
}

function decrypt(key: Buffer, box: Buffer, aad: Buffer, what: string): Buffer {
  if (box.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError(`sealed value is damaged (${what} too short)`);
  try {
    const d = createDecipheriv('aes-256-gcm', key, box.subarray(0, IV_BYTES)).setAAD(aad);
    d.setAuthTag(box.subarray(box.length - TAG_BYTES));
    return Buffer.concat([d.update(box.subarray(IV_BYTES, box.length - TAG_BYTES)), d.final()]);
  } catch {
    throw new SecretBoxError(`sealed value does not open: its ${what} was altered, or it belongs to another record`);
  }
}

type Parts = { keyId: string; wrapped: Buffer; value: Buffer };

function parse(sealed: string): Parts {
  const parts = sealed.split('.');
  if (parts.length !== 4 || parts[0] !== 'sb1') throw new SecretBoxError('not a sealed value (expected sb1.<key id>.<key>.<value>)');
  const [, keyId, wrapped, value] = parts as [string, string, string, string];
  if (!/^[0-9a-f]{16}$/.test(keyId) || !/^[A-Za-z0-9_-]+$/.test(wrapped) || !/^[A-Za-z0-9_-]+$/.test(value)) {
    throw new SecretBoxError('not a sealed value (malformed part)');
  }
  return { keyId, wrapped: Buffer.from(wrapped, 'base64url'), value: Buffer.from(value, 'base64url') };
}

function kek(keyId: string): SecretKey {
  const k = keyring().byId.get(keyId);
  if (!k) throw new SecretBoxError(`sealed with operator key ${keyId}, which is not configured`);
  return k;
}

function unwrap(p: Parts, aad: string): Buffer {
  const dataKey = decrypt(kek(p.keyId).key, p.wrapped, keyHeader(p.keyId, aad), 'data key');
  if (dataKey.length !== KEY_BYTES) throw new SecretBoxError('sealed value is damaged (data key)');
  return dataKey;
}

const wrap = (k: SecretKey, dataKey: Buffer, aad: string): string => b64(encrypt(k.key, dataKey, keyHeader(k.id, aad)));

/** Seals `plain` for the record `aad` names, under the current operator key. */
export function sealSecret(plain: string, aad: string): string {
  const k = keyring().current;
  const dataKey = randomBytes(KEY_BYTES);
  try {
    const value = b64(encrypt(dataKey, Buffer.from(plain, 'utf8'), valueHeader(aad)));
    return `${SEALED_PREFIX}${k.id}.${wrap(k, dataKey, aad)}.${value}`;
  } finally {
    dataKey.fill(0);
  }
}

/** Opens a value sealed for the record `aad` names; throws `SecretBoxError` otherwise. */
export function openSecret(sealed: string, aad: string): string {
  const p = parse(sealed);
  const dataKey = unwrap(p, aad);
  try {
    return decrypt(dataKey, p.value, valueHeader(aad), 'value').toString('utf8');
  } finally {
    dataKey.fill(0);
  }
}

/** The id of the operator key a sealed value names (undefined when it is not one). */
export function sealedKeyId(sealed: string): string | undefined {
  try {
    return parse(sealed).keyId;
  } catch {
    return undefined;
  }
}

/** The prefix every value sealed under the current key starts with (to find the rest in SQL). */
export const currentSealPrefix = (): string => `${SEALED_PREFIX}${keyring().current.id}.`;

/**
 * Re-wraps a sealed value's data key under the current operator key (key rotation). The sealed
 * value itself is unchanged; the value is opened first, so a damaged one is refused, not carried over.
 */
export function rewrapSecret(sealed: string, aad: string): string {
  const p = parse(sealed);
  const k = keyring().current;
  if (p.keyId === k.id) return sealed;
  const dataKey = unwrap(p, aad);
  try {
    decrypt(dataKey, p.value, valueHeader(aad), 'value').fill(0);
    return `${SEALED_PREFIX}${k.id}.${wrap(k, dataKey, aad)}.${b64(p.value)}`;
  } finally {
    dataKey.fill(0);
  }
}
