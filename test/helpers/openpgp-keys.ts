import * as openpgp from 'openpgp';

/** Real OpenPGP keys made at test time: a good one, its private half, a revoked, an expired, a sign-only key. */
export async function makeTestKeys(email = 'psirt@acme.example') {
  const good = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'Acme PSIRT', email }], format: 'armored' });
  const parsed = await openpgp.readKey({ armoredKey: good.publicKey });
  const fingerprint = parsed
    .getFingerprint()
    .toUpperCase()
    .replace(/(.{4})(?!$)/g, '$1 ');
  const second = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ email }], format: 'armored' });
  const { publicKey: revoked } = await openpgp.revokeKey({
    key: await openpgp.readKey({ armoredKey: second.publicKey }),
    revocationCertificate: second.revocationCertificate,
    format: 'armored',
  });
  const expired = await openpgp.generateKey({
    type: 'ecc',
    curve: 'curve25519Legacy',
    userIDs: [{ email }],
    keyExpirationTime: 86_400,
    date: new Date(Date.now() - 10 * 86_400_000),
    format: 'armored',
  });
  const signOnly = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ email }], subkeys: [], format: 'armored' });
  return { publicKey: good.publicKey, privateKey: good.privateKey, fingerprint, revoked, expired: expired.publicKey, signOnly: signOnly.publicKey };
}
