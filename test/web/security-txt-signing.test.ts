import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as openpgp from 'openpgp';
import { ConfigError, loadConfig } from '../../src/config.js';
import { loadSecurityTxtSigner, type SecurityTxtSigner, SigningKeyError, signerFromKey } from '../../src/web/portal/security-txt-signer.js';
import { makeTenant, signInCookie } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { creditedAdvisory } from '../helpers/advisories.js';
import { makeCompany, TEST_PASSWORD } from '../helpers/factories.js';
import { runTs } from '../helpers/processes.js';
import { fieldValues, parseSecurityTxt } from '../helpers/security-txt.js';

const USER = { name: 'Cradle security.txt', email: 'security-txt@cradle.example.test' };
const gen = (o: Partial<Parameters<typeof openpgp.generateKey>[0]> = {}) =>
  openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [USER], format: 'armored', ...o } as Parameters<typeof openpgp.generateKey>[0] & {
    format: 'armored';
  });
const spaced = (hex: string) => hex.toUpperCase().replace(/(.{4})(?!$)/g, '$1 ');

let dir: string;
let key: { privateKey: string; publicKey: string; fingerprint: string };
let signer: SecurityTxtSigner;
let t: TestApp;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cradle-sectxt-'));
  // The key the operator configures: passphrase-protected, in a file, with its passphrase in another.
  const k = await gen({ passphrase: 'correct horse battery staple' });
  key = { ...k, fingerprint: spaced((await openpgp.readKey({ armoredKey: k.publicKey })).getFingerprint()) };
  await writeFile(join(dir, 'key.asc'), k.privateKey);
  await writeFile(join(dir, 'pass'), 'correct horse battery staple\n');
  const config = loadConfig({ SECURITY_TXT_SIGNING_KEY_FILE: join(dir, 'key.asc'), SECURITY_TXT_SIGNING_KEY_PASSPHRASE_FILE: join(dir, 'pass') });
  assert.ok(config.securityTxtSigning);
  signer = await loadSecurityTxtSigner(config.securityTxtSigning);
  t = await createTestApp({ PUBLIC_URL: 'https://cradle.example.test' }, { securityTxtSigner: signer });
});
after(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const host = (slug: string) => `${slug}.cradle.example.test`;
const get = (slug: string, url: string) => t.app.inject({ url, headers: { host: host(slug) } });
const verify = async (armored: string, publicKey: string) => {
  const message = await openpgp.readCleartextMessage({ cleartextMessage: armored });
  const { signatures } = await openpgp.verify({ message, verificationKeys: await openpgp.readKey({ armoredKey: publicKey }), expectSigned: true });
  return { text: message.getText(), keyID: signatures[0]?.keyID.toHex() };
};

describe('signed security.txt (RFC 9116 section 2.3)', () => {
  it('is an OpenPGP cleartext-signed message that verifies with the key the portal publishes', async () => {
    const c = await makeCompany(t.database.db);
    const res = await get(c.slug, '/.well-known/security.txt');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
    assert.match(res.body, /^-----BEGIN PGP SIGNED MESSAGE-----\r?\nHash: SHA\d+\r?\n\r?\n/);
    assert.match(res.body, /-----BEGIN PGP SIGNATURE-----[\s\S]+-----END PGP SIGNATURE-----\r?\n$/);

    const published = await get(c.slug, '/security-txt-signing-key.txt');
    assert.equal(published.statusCode, 200);
    assert.match(published.body, /^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    assert.ok(!published.body.includes('PRIVATE'), 'only the public half is published');
    const published1 = await openpgp.readKey({ armoredKey: published.body });
    assert.equal(spaced(published1.getFingerprint()), key.fingerprint, 'the configured key');

    const { text, keyID } = await verify(res.body, published.body);
    assert.equal(keyID, (await published1.getSigningKey()).getKeyID().toHex());
    const p = parseSecurityTxt(text, new Date());
    assert.deepEqual(p.errors, [], 'the signed text is itself a valid security.txt');
    assert.deepEqual(fieldValues(p, 'canonical'), [`https://${host(c.slug)}/.well-known/security.txt`], 'a signed file names its canonical URL');
    assert.deepEqual(fieldValues(p, 'contact'), [`https://${host(c.slug)}/submit`]);
    assert.match(
      text,
      new RegExp(`^# Signed with the OpenPGP key ${key.fingerprint}, published at https://${host(c.slug)}/security-txt-signing-key.txt$`, 'm'),
    );
  });

  it('fails verification when a field is changed', async () => {
    const c = await makeCompany(t.database.db);
    const body = (await get(c.slug, '/.well-known/security.txt')).body;
    const tampered = body.replace(`Contact: https://${host(c.slug)}/submit`, 'Contact: https://evil.example/submit');
    assert.notEqual(tampered, body);
    await assert.rejects(verify(tampered, key.publicKey), /digest did not match|signature/i);
    const other = await gen();
    await assert.rejects(verify(body, other.publicKey), /key|signature/i, 'and it does not verify with another key');
  });

  it('still carries Acknowledgments once someone is credited, and verifies', async () => {
    const c = await makeCompany(t.database.db);
    await creditedAdvisory(t.database.db, c, ['Jane Researcher']);
    const { text } = await verify((await get(c.slug, '/.well-known/security.txt')).body, key.publicKey);
    const p = parseSecurityTxt(text, new Date());
    assert.deepEqual(p.errors, []);
    assert.deepEqual(fieldValues(p, 'acknowledgments'), [`https://${host(c.slug)}/acknowledgments`]);
    assert.equal(fieldValues(p, 'csaf').length, 1);
  });

  it('signs each text once: the same bytes are served until the text changes', async () => {
    const c = await makeCompany(t.database.db);
    const first = (await get(c.slug, '/.well-known/security.txt')).body;
    // Each openpgp.js signature carries a fresh salt, so equal bytes mean the memo answered.
    assert.equal((await get(c.slug, '/.well-known/security.txt')).body, first);
    const direct = await signer.sign('Contact: https://x.test/\n');
    assert.notEqual(await signer.sign('Contact: https://y.test/\n'), direct);
  });

  it('shows the fingerprint on the landing page and on the dashboard portal settings page', async () => {
    const c = await makeCompany(t.database.db);
    const landing = (await get(c.slug, '/')).body;
    assert.ok(landing.includes(`<code id="security-txt-fingerprint">${key.fingerprint}</code>`));
    assert.ok(landing.includes('href="/security-txt-signing-key.txt"'));
    const tenant = await makeTenant(t.database.db);
    const cookie = await signInCookie(t, tenant.admin.email, TEST_PASSWORD, 'cradle.example.test');
    const dash = await t.app.inject({ url: '/settings/portal', headers: { host: 'cradle.example.test', cookie } });
    assert.equal(dash.statusCode, 200);
    assert.match(dash.body, new RegExp(`id="security-txt-signing">OpenPGP key <code>${key.fingerprint}</code>`));
  });

  it('goes out unsigned when the key can no longer sign (expired while running)', async () => {
    const short = await gen({ keyExpirationTime: 3600 });
    const s = await signerFromKey(short.privateKey, undefined);
    assert.equal(await s.sign('Contact: https://a.test/\n', new Date(Date.now() + 2 * 3600_000)), undefined);
  });
});

describe('the signing key is checked at start', () => {
  const refuses = async (armored: string, passphrase: string | undefined, pattern: RegExp) =>
    assert.rejects(signerFromKey(armored, passphrase), (e: unknown) => e instanceof SigningKeyError && pattern.test(e.message));

  it('refuses a missing file, naming the variable', async () => {
    await assert.rejects(
      loadSecurityTxtSigner({ keyFile: join(dir, 'nope.asc'), passphraseFile: undefined }),
      (e: unknown) => e instanceof SigningKeyError && /^SECURITY_TXT_SIGNING_KEY_FILE: cannot read .*nope\.asc/.test(e.message),
    );
  });

  it('refuses a public key, junk, a damaged block and two keys in one file', async () => {
    await refuses(key.publicKey, undefined, /holds a PUBLIC key/);
    await refuses('hello', undefined, /holds no ASCII-armoured OpenPGP private key/);
    const bad = key.privateKey.replace(/\n([A-Za-z0-9+/]{20})/, '\n!!!!');
    await refuses(bad, 'correct horse battery staple', /could not be read as OpenPGP/);
    const [a, b] = await Promise.all([gen(), gen()]);
    await refuses(a.privateKey + b.privateKey, undefined, /exactly one private key, found 2 key blocks/);
  });

  it('refuses a passphrase-protected key without its passphrase, or with a wrong one', async () => {
    await refuses(key.privateKey, undefined, /protected by a passphrase.*SECURITY_TXT_SIGNING_KEY_PASSPHRASE_FILE/);
    await refuses(key.privateKey, 'wrong', /^SECURITY_TXT_SIGNING_KEY_PASSPHRASE_FILE: the passphrase does not unlock the key/);
  });

  it('refuses an expired and a revoked key', async () => {
    const expired = await gen({ keyExpirationTime: 86_400, date: new Date(Date.now() - 10 * 86_400_000) });
    await refuses(expired.privateKey, undefined, /has expired/);
    const k = await gen();
    const { privateKey: revoked } = await openpgp.revokeKey({ key: await openpgp.readPrivateKey({ armoredKey: k.privateKey }), format: 'armored' });
    await refuses(revoked, undefined, /revoked/);
  });

  it('refuses a key whose signing secret is missing (a stub, as gpg --export-secret-subkeys leaves it)', async () => {
    const k = await openpgp.readPrivateKey({ armoredKey: (await gen()).privateKey });
    (k.keyPacket as openpgp.SecretKeyPacket).makeDummy();
    await refuses(k.armor(), undefined, /may sign|cannot make a signature/);
  });

  it('accepts an unprotected key, and reports its fingerprint and expiry', async () => {
    const k = await gen({ keyExpirationTime: 400 * 86_400 });
    const s = await signerFromKey(k.privateKey, undefined);
    assert.equal(s.fingerprint, spaced((await openpgp.readKey({ armoredKey: k.publicKey })).getFingerprint()));
    assert.ok(s.expiresAt && s.expiresAt.getTime() > Date.now() + 399 * 86_400_000);
  });

  it('stops the server at start with one line saying what is wrong', async () => {
    const run = await runTs('src/main.ts', [], {
      SECURITY_TXT_SIGNING_KEY_FILE: join(dir, 'key.asc'),
      DATA_DIR: join(dir, 'data'),
      PORT: '0',
      LOG_LEVEL: 'silent',
    });
    assert.equal(run.code, 1);
    assert.equal(
      run.stderr,
      'cradle: SECURITY_TXT_SIGNING_KEY_FILE: the key is protected by a passphrase: put it in a file and name that file in SECURITY_TXT_SIGNING_KEY_PASSPHRASE_FILE\n',
    );
  });

  it('refuses a passphrase file without a key file in the configuration', () => {
    assert.throws(
      () => loadConfig({ SECURITY_TXT_SIGNING_KEY_PASSPHRASE_FILE: '/run/secrets/pass' }),
      (e: unknown) => e instanceof ConfigError && /without SECURITY_TXT_SIGNING_KEY_FILE/.test(e.message),
    );
  });
});
