import { BackupError } from './backup-format.js';

// Loaded on first use, as elsewhere: the library is large.
const pgp = () => import('openpgp');

/** Reads the operator's public key for `--encrypt-to`: one public key that can encrypt, or a BackupError. */
export async function readRecipient(armored: string): Promise<{ fingerprint: string; armored: string }> {
  if (/-----BEGIN PGP PRIVATE KEY BLOCK-----/.test(armored)) {
    throw new BackupError('--encrypt-to takes the PUBLIC key (gpg --armor --export <fingerprint>); keep the private key away from the server');
  }
  const { readKey } = await pgp();
  const key = await readKey({ armoredKey: armored }).catch((e: unknown) => {
    throw new BackupError(`--encrypt-to: not an OpenPGP public key: ${(e as Error).message}`);
  });
  const usable = await key.getEncryptionKey().catch(() => undefined);
  if (!usable) throw new BackupError('--encrypt-to: the key cannot encrypt (revoked, expired, or without an encryption subkey)');
  return { fingerprint: key.getFingerprint(), armored };
}

/** The payload encrypted to the recipient (binary OpenPGP message, integrity-protected). */
export async function encryptPayload(plain: Uint8Array, recipientArmored: string): Promise<Uint8Array> {
  const { createMessage, encrypt, readKey } = await pgp();
  const encryptionKeys = await readKey({ armoredKey: recipientArmored });
  return encrypt({ message: await createMessage({ binary: plain }), encryptionKeys, format: 'binary' });
}

/**
 * The payload decrypted with the operator's private key (`--decrypt-with`, armoured; a protected
 * key takes its passphrase from CRADLE_BACKUP_PASSPHRASE). Any failure is a BackupError naming it.
 */
export async function decryptPayload(stored: Uint8Array, privateArmored: string, passphrase: string | undefined): Promise<Uint8Array> {
  const { decrypt, decryptKey, readMessage, readPrivateKey } = await pgp();
  let key = await readPrivateKey({ armoredKey: privateArmored }).catch((e: unknown) => {
    throw new BackupError(`--decrypt-with: not an OpenPGP private key: ${(e as Error).message}`);
  });
  if (!key.isDecrypted()) {
    if (!passphrase) throw new BackupError('--decrypt-with: the private key is protected: set CRADLE_BACKUP_PASSPHRASE');
    key = await decryptKey({ privateKey: key, passphrase }).catch(() => {
      throw new BackupError('--decrypt-with: the passphrase in CRADLE_BACKUP_PASSPHRASE does not open the private key');
    });
  }
  try {
    const message = await readMessage({ binaryMessage: stored });
    const { data } = await decrypt({ message, decryptionKeys: key, format: 'binary', expectSigned: false });
    return data;
  } catch (e) {
    throw new BackupError(`the backup cannot be decrypted with this key: ${(e as Error).message}`);
  }
}
