import { readFile } from 'node:fs/promises';
import type { PrivateKey } from 'openpgp';
import { BoundedMap } from '../../kernel/bounded-map.js';
import { describeAlgorithm, fingerprintOf } from '../../modules/companies/openpgp-public-key.js';

/** Where the operator keeps the signing key (README "Configuration"). */
export type SigningKeyFiles = { keyFile: string; passphraseFile: string | undefined };

/** The operator's key that signs every portal's security.txt (RFC 9116 section 2.3), checked at start. */
export type SecurityTxtSigner = {
  /** Upper-case hex in groups of four, as the portal and the dashboard show it. */
  readonly fingerprint: string;
  readonly algorithm: string;
  /** null: the key does not expire. */
  readonly expiresAt: Date | null;
  /** The public half, ASCII-armoured: what the portals publish. */
  readonly publicKey: string;
  /**
   * `text` as an OpenPGP cleartext-signed message; undefined when the key can no longer sign (it
   * expired while the server ran): the caller serves the file unsigned.
   */
  sign(text: string, now?: Date): Promise<string | undefined>;
};

/** The key is unusable; `message` says why and what to do, for the operator at start. */
export class SigningKeyError extends Error {
  override name = 'SigningKeyError';
}

const KEY_VAR = 'SECURITY_TXT_SIGNING_KEY_FILE';
const PASS_VAR = 'SECURITY_TXT_SIGNING_KEY_PASSPHRASE_FILE';
/** One signed text per company and day (Expires changes at midnight UTC); a few days of many companies. */
const MEMO_ENTRIES = 4096;

const pgp = () => import('openpgp');
const reason = (e: unknown): string => String((e as Error).message ?? e).slice(0, 200);

async function readSecret(path: string, variable: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    throw new SigningKeyError(`${variable}: cannot read ${path}: ${reason(e)}`);
  }
}

/** Reads the key (and its passphrase) from the files the operator named, and checks it: see `signerFromKey`. */
export async function loadSecurityTxtSigner(files: SigningKeyFiles, now = new Date()): Promise<SecurityTxtSigner> {
  const armored = await readSecret(files.keyFile, KEY_VAR);
  // A file written by `echo` or an editor ends in a line break that is not part of the passphrase.
  const passphrase = files.passphraseFile ? (await readSecret(files.passphraseFile, PASS_VAR)).replace(/\r?\n$/, '') : undefined;
  return signerFromKey(armored, passphrase, now);
}

/**
 * Checks an armoured OpenPGP private key with openpgp.js and returns a signer: exactly one private
 * key, unlocked (with the passphrase when it has one), not revoked, not expired, with a key that
 * may sign; a trial signature must verify with the public half. Anything else throws a
 * SigningKeyError that says what is wrong, so the server refuses to start rather than serve files
 * signed by a key nobody can verify.
 */
export async function signerFromKey(armored: string, passphrase: string | undefined, now = new Date()): Promise<SecurityTxtSigner> {
  const openpgp = await pgp();
  if (!/-----BEGIN PGP PRIVATE KEY BLOCK-----/.test(armored)) {
    const what = /-----BEGIN PGP PUBLIC KEY BLOCK-----/.test(armored) ? 'holds a PUBLIC key' : 'holds no ASCII-armoured OpenPGP private key';
    throw new SigningKeyError(`${KEY_VAR} ${what}: export the private key with gpg --armor --export-secret-keys <fingerprint>`);
  }
  // openpgp.js reads the first armoured block only: a second would be ignored without a word.
  const blocks = armored.match(/-----BEGIN PGP PRIVATE KEY BLOCK-----/g)?.length ?? 0;
  if (blocks > 1) throw new SigningKeyError(`${KEY_VAR}: expected exactly one private key, found ${blocks} key blocks`);
  let keys: PrivateKey[];
  try {
    keys = await openpgp.readPrivateKeys({ armoredKeys: armored });
  } catch (e) {
    throw new SigningKeyError(`${KEY_VAR}: the key could not be read as OpenPGP: ${reason(e)}`);
  }
  if (keys.length !== 1 || !keys[0]) throw new SigningKeyError(`${KEY_VAR}: expected exactly one private key, found ${keys.length}`);
  let key = keys[0];
  if (!key.isDecrypted()) {
    if (passphrase === undefined)
      throw new SigningKeyError(`${KEY_VAR}: the key is protected by a passphrase: put it in a file and name that file in ${PASS_VAR}`);
    try {
      key = await openpgp.decryptKey({ privateKey: key, passphrase });
    } catch {
      throw new SigningKeyError(`${PASS_VAR}: the passphrase does not unlock the key`);
    }
  }
  if (await key.isRevoked(undefined, undefined, now)) throw new SigningKeyError(`${KEY_VAR}: the key is revoked: configure a current key`);
  try {
    await key.verifyPrimaryKey(now);
  } catch (e) {
    if (/expired/i.test(reason(e)))
      throw new SigningKeyError(`${KEY_VAR}: the key has expired: extend its expiry (gpg --quick-set-expire) or configure a current key`);
    throw new SigningKeyError(`${KEY_VAR}: the key is not valid: ${reason(e)}`);
  }
  try {
    await key.getSigningKey(undefined, now);
  } catch {
    throw new SigningKeyError(`${KEY_VAR}: the key has no valid key that may sign (primary key or signing subkey)`);
  }
  const publicKey = key.toPublic();
  const signOnce = async (text: string, date: Date): Promise<string> =>
    openpgp.sign({ message: await openpgp.createCleartextMessage({ text }), signingKeys: key, date });
  // A trial signature, verified: catches keys whose secret parts are stubs (gpg --export-secret-subkeys).
  try {
    const trial = await openpgp.readCleartextMessage({ cleartextMessage: await signOnce('trial\n', now) });
    const { signatures } = await openpgp.verify({ message: trial, verificationKeys: publicKey, date: now, expectSigned: true });
    await signatures[0]?.verified;
  } catch (e) {
    throw new SigningKeyError(`${KEY_VAR}: the key cannot make a signature that verifies: ${reason(e)}`);
  }
  const expiry = await key.getExpirationTime();

  // Signing costs milliseconds and the text of a portal changes at most daily (Expires, a setting,
  // a first advisory or credit), so each exact text is signed once. Keyed by the text itself: no
  // invalidation, and a text that changed is a different key. Bounded; the oldest entries go first.
  const memo = new BoundedMap<string, Promise<string | undefined>>(MEMO_ENTRIES);
  return {
    fingerprint: fingerprintOf(publicKey),
    algorithm: describeAlgorithm(key.getAlgorithmInfo()),
    expiresAt: expiry instanceof Date ? expiry : null,
    publicKey: publicKey.armor(),
    sign(text, now = new Date()) {
      let signed = memo.get(text);
      if (!signed) {
        // A key that expired since the start cannot sign: remembered for this text (so once per
        // company and day), and the file goes out unsigned rather than not at all.
        signed = signOnce(text, now).catch(() => undefined);
        memo.set(text, signed);
      }
      return signed;
    },
  };
}
