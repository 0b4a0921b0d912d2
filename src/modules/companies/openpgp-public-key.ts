import type { PublicKey } from 'openpgp';

/** What the settings page and the API show about a published key. */
export type PublicKeyFacts = {
  fingerprint: string;
  /** The primary user ids (name and e-mail), as the key states them. */
  userIds: string[];
  algorithm: string;
  createdAt: string;
  /** null: the key does not expire. */
  expiresAt: string | null;
};

export type CheckedKey = { ok: true; armored: string; facts: PublicKeyFacts } | { ok: false; message: string };

// Loaded on first use: most requests never look at a key, and the library is large to load at start.
const pgp = () => import('openpgp');

/** The fingerprint as people compare it: upper-case hex in groups of four. */
export const fingerprintOf = (k: PublicKey): string =>
  k
    .getFingerprint()
    .toUpperCase()
    .replace(/(.{4})(?!$)/g, '$1 ');

/**
 * Parses and checks a company's OpenPGP public key with openpgp.js (maintained, RFC 9580): one
 * public key (never a private one), a valid self-signature, not revoked, not expired, and able to
 * encrypt (researchers encrypt reports to it). The stored text is the key re-armoured by the
 * library, so pasted junk around the block and armour comments are not published. `now` decides
 * expiry.
 */
export async function checkPublicKey(text: string, now = new Date()): Promise<CheckedKey> {
  if (/-----BEGIN PGP PRIVATE KEY BLOCK-----/.test(text)) {
    return { ok: false, message: 'this is a PRIVATE key: never publish it; paste the PUBLIC key block (gpg --armor --export <fingerprint>)' };
  }
  if (!/-----BEGIN PGP PUBLIC KEY BLOCK-----/.test(text)) {
    return { ok: false, message: 'expected an ASCII-armoured OpenPGP public key block (-----BEGIN PGP PUBLIC KEY BLOCK----- ...)' };
  }
  const { readKeys } = await pgp();
  let keys;
  try {
    keys = await readKeys({ armoredKeys: text });
  } catch (e) {
    return { ok: false, message: `the key block could not be read as OpenPGP: ${String((e as Error).message).slice(0, 160)}` };
  }
  if (keys.length !== 1) return { ok: false, message: `expected exactly one key, found ${keys.length}` };
  const key = keys[0];
  if (!key) return { ok: false, message: 'no key found in the block' };
  if (key.isPrivate()) return { ok: false, message: 'this is a PRIVATE key: never publish it; paste the PUBLIC key' };
  if (await key.isRevoked(undefined, undefined, now)) return { ok: false, message: 'this key is revoked: publish a current key' };
  try {
    await key.verifyPrimaryKey(now);
  } catch (e) {
    const why = String((e as Error).message);
    if (/expired/i.test(why)) return { ok: false, message: 'this key has expired: extend its expiry (gpg --quick-set-expire) or publish a current key' };
    return { ok: false, message: `the key is not valid: ${why.slice(0, 160)}` };
  }
  try {
    await key.getEncryptionKey(undefined, now);
  } catch {
    return { ok: false, message: 'the key has no valid encryption subkey, so researchers could not encrypt to it' };
  }
  const expiry = await key.getExpirationTime();
  const user = await key.getPrimaryUser(now).catch(() => undefined);
  const publicKey = key.toPublic();
  return {
    ok: true,
    armored: publicKey.armor(),
    facts: {
      fingerprint: fingerprintOf(publicKey),
      userIds: user ? [user.user.userID?.userID ?? ''].filter(Boolean) : key.getUserIDs(),
      algorithm: describeAlgorithm(key.getAlgorithmInfo()),
      createdAt: key.getCreationTime().toISOString(),
      expiresAt: expiry instanceof Date ? expiry.toISOString() : null,
    },
  };
}

export function describeAlgorithm(a: { algorithm: string; bits?: number; curve?: string }): string {
  return a.curve ? `${a.algorithm} (${a.curve})` : a.bits ? `${a.algorithm} ${a.bits}` : a.algorithm;
}

/** Facts of a stored key (already checked when saved); undefined when it no longer parses. */
export async function describeStoredKey(armored: string, now = new Date()): Promise<PublicKeyFacts | undefined> {
  const r = await checkPublicKey(armored, now);
  if (r.ok) return r.facts;
  const { readKey } = await pgp();
  try {
    const key = await readKey({ armoredKey: armored });
    const expiry = await key.getExpirationTime();
    return {
      fingerprint: fingerprintOf(key),
      userIds: key.getUserIDs(),
      algorithm: describeAlgorithm(key.getAlgorithmInfo()),
      createdAt: key.getCreationTime().toISOString(),
      expiresAt: expiry instanceof Date ? expiry.toISOString() : null,
    };
  } catch {
    return undefined;
  }
}
