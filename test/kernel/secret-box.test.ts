import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  hasSecretKeys,
  makeSecretKeyring,
  openSecret,
  rewrapSecret,
  SecretBoxError,
  type SecretKeyring,
  sealedKeyId,
  sealSecret,
  secretKeyId,
  useSecretKeys,
} from '../../src/kernel/secret-box.js';
import { GENERATED_KEY_FILE, loadSecretKeys, parseSecretKeys } from '../../src/kernel/secret-keys.js';

const oldKey = randomBytes(32);
const newKey = randomBytes(32);
const ring = (...keys: Buffer[]): SecretKeyring => makeSecretKeyring(keys);
const b64 = (k: Buffer) => k.toString('base64');

/** Flips one bit of the `part`-th dot-separated part (2: the wrapped data key, 3: the sealed value). */
function flip(sealed: string, part: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part] as string, 'base64url');
  bytes[bytes.length >> 1] = (bytes[bytes.length >> 1] as number) ^ 1;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('secret box', () => {
  afterEach(() => useSecretKeys(undefined));

  it('opens what it sealed, and the sealed form holds neither the value nor a fixed ciphertext', () => {
    useSecretKeys(ring(newKey));
    const a = sealSecret('whsec_c2VjcmV0LXZhbHVlLW9mLXRoZS1lbmRwb2ludA==', 'webhook:1');
    const b = sealSecret('whsec_c2VjcmV0LXZhbHVlLW9mLXRoZS1lbmRwb2ludA==', 'webhook:1');
    assert.equal(openSecret(a, 'webhook:1'), 'whsec_c2VjcmV0LXZhbHVlLW9mLXRoZS1lbmRwb2ludA==');
    assert.notEqual(a, b, 'a fresh data key and nonce per value');
    assert.ok(!a.includes('c2VjcmV0') && !a.includes('whsec'));
    assert.match(a, /^sb1\.[0-9a-f]{16}\.[\w-]+\.[\w-]+$/);
    assert.equal(sealedKeyId(a), secretKeyId(newKey));
    assert.equal(openSecret(sealSecret('', 'x'), 'x'), '', 'the empty string too');
    assert.equal(openSecret(sealSecret('päss ✓', 'x'), 'x'), 'päss ✓', 'UTF-8');
  });

  it('refuses a value sealed for another record', () => {
    useSecretKeys(ring(newKey));
    const sealed = sealSecret('the secret', 'webhook:a');
    assert.throws(
      () => openSecret(sealed, 'webhook:b'),
      (e: unknown) => e instanceof SecretBoxError && /another record/.test(e.message),
    );
  });

  it('refuses a value whose data key or ciphertext was altered, or that is cut or not sealed at all', () => {
    useSecretKeys(ring(newKey));
    const sealed = sealSecret('the secret', 'webhook:a');
    assert.throws(() => openSecret(flip(sealed, 2), 'webhook:a'), /data key was altered/);
    assert.throws(() => openSecret(flip(sealed, 3), 'webhook:a'), /value was altered/);
    assert.throws(() => openSecret(sealed.slice(0, -30), 'webhook:a'), SecretBoxError);
    assert.throws(() => openSecret('the secret', 'webhook:a'), /not a sealed value/);
    assert.throws(() => openSecret('plain:the secret', 'webhook:a'), /not a sealed value/);
  });

  it('refuses a value under a key that is not configured, naming the key id and nothing of the key', () => {
    useSecretKeys(ring(oldKey));
    const sealed = sealSecret('the secret', 'webhook:a');
    useSecretKeys(ring(newKey));
    assert.throws(
      () => openSecret(sealed, 'webhook:a'),
      (e: unknown) => e instanceof SecretBoxError && e.message.includes(secretKeyId(oldKey)) && !e.message.includes(b64(oldKey)),
    );
  });

  it('rotates: the new key seals, the old one still opens, and a re-wrap moves a value to the new key with its sealed value unchanged', () => {
    useSecretKeys(ring(oldKey));
    const before = sealSecret('the secret', 'webhook:a');
    useSecretKeys(ring(newKey, oldKey));
    assert.equal(openSecret(before, 'webhook:a'), 'the secret');
    assert.equal(sealedKeyId(sealSecret('x', 'y')), secretKeyId(newKey));
    const moved = rewrapSecret(before, 'webhook:a');
    assert.equal(sealedKeyId(moved), secretKeyId(newKey));
    assert.equal(moved.split('.')[3], before.split('.')[3], 'only the data key is re-wrapped');
    assert.equal(rewrapSecret(moved, 'webhook:a'), moved, 'a value under the current key is left as it is');
    assert.throws(() => rewrapSecret(flip(before, 3), 'webhook:a'), /value was altered/, 'a damaged value is not carried over');
    useSecretKeys(ring(newKey));
    assert.equal(openSecret(moved, 'webhook:a'), 'the secret', 'opens once the old key is gone');
  });

  it('refuses to seal or open without a key', () => {
    assert.equal(hasSecretKeys(), false);
    assert.throws(() => sealSecret('x', 'y'), /no operator key is loaded/);
  });
});

describe('operator key loading', () => {
  let dir = '';
  before(async () => (dir = await mkdtemp(join(tmpdir(), 'cradle-keys-'))));
  after(() => rm(dir, { recursive: true, force: true }));

  it('reads SECRETS_KEY: the first key seals, the others open', async () => {
    const loaded = await loadSecretKeys({ configured: { text: `${b64(newKey)}, ${b64(oldKey)}` }, dataDir: dir, embedded: false });
    assert.equal(loaded.ring.current.id, secretKeyId(newKey));
    assert.deepEqual([...loaded.ring.byId.keys()], [secretKeyId(newKey), secretKeyId(oldKey)]);
  });

  it('reads a key file with comment lines, and warns when others may read it', async () => {
    const path = join(dir, 'loose.key');
    await writeFile(path, `# current\n${b64(newKey)}\n# before the rotation\n${b64(oldKey)}\n`, { mode: 0o644 });
    const loaded = await loadSecretKeys({ configured: { file: path }, dataDir: dir, embedded: false });
    assert.equal(loaded.ring.current.id, secretKeyId(newKey));
    assert.equal(loaded.ring.byId.size, 2);
    assert.match(loaded.warnings.join(), /readable by others \(mode 644\)/);
  });

  it('refuses keys that are not base64 of 32 bytes, without echoing them', () => {
    assert.throws(
      () => parseSecretKeys('c2hvcnQ=', 'SECRETS_KEY'),
      (e: unknown) => e instanceof SecretBoxError && /key 1 is not base64 of 32 bytes/.test(e.message) && !e.message.includes('c2hvcnQ'),
    );
    assert.throws(() => parseSecretKeys(`${b64(newKey)} nonsense`, 'SECRETS_KEY'), /key 2/);
    assert.throws(() => parseSecretKeys('# only a comment\n', 'the key file k'), /holds no key/);
  });

  it('on the embedded database without a key, makes one in DATA_DIR with mode 0600 once and reads it after', async () => {
    const first = await loadSecretKeys({ configured: undefined, dataDir: dir, embedded: true });
    const path = join(dir, GENERATED_KEY_FILE);
    assert.deepEqual(first.source, { kind: 'file', path, generated: true });
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.deepEqual(first.warnings, []);
    const again = await loadSecretKeys({ configured: undefined, dataDir: dir, embedded: true });
    assert.deepEqual(again.source, { kind: 'file', path, generated: false });
    assert.equal(again.ring.current.id, first.ring.current.id, 'the same key at the next start');
    assert.match(await readFile(path, 'utf8'), /^# Cradle operator key/);
  });

  it('on PostgreSQL without a key, refuses with what to set', async () => {
    await assert.rejects(loadSecretKeys({ configured: undefined, dataDir: dir, embedded: false }), /on PostgreSQL set SECRETS_KEY or SECRETS_KEY_FILE/);
  });
});
