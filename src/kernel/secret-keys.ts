import { randomBytes } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { makeSecretKeyring, SecretBoxError, type SecretKeyring } from './secret-box.js';

/** The key file made in DATA_DIR on the embedded database when no key is configured. */
export const GENERATED_KEY_FILE = 'secrets.key';

export type LoadedSecretKeys = {
  ring: SecretKeyring;
  /** Where the keys came from: `SECRETS_KEY`, a file, or a file generated now. */
  source: { kind: 'env' } | { kind: 'file'; path: string; generated: boolean };
  /** Things the operator should fix, for the start-up log (never key material). */
  warnings: string[];
};

const KEY = /^[A-Za-z0-9+/]{43}=$/;

/**
 * Operator keys from text: base64 of 32 bytes each, separated by commas, spaces or lines (`#` starts
 * a comment line). The first seals; the others only open (values sealed before a rotation).
 */
export function parseSecretKeys(text: string, where: string): Buffer[] {
  const words = text
    .split('\n')
    .filter((l) => !l.trim().startsWith('#'))
    .join(' ')
    .split(/[\s,]+/)
    .filter(Boolean);
  if (words.length === 0) throw new SecretBoxError(`${where} holds no key`);
  return words.map((w, i) => {
    if (!KEY.test(w)) throw new SecretBoxError(`${where}: key ${i + 1} is not base64 of 32 bytes (make one with: openssl rand -base64 32)`);
    return Buffer.from(w, 'base64');
  });
}

async function readKeyFile(path: string, warnings: string[]): Promise<Buffer[]> {
  const text = await readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new SecretBoxError(`cannot read the key file ${path}: ${e.code ?? e.message}`);
  });
  const mode = (await stat(path)).mode & 0o777;
  if (mode & 0o077) warnings.push(`the key file ${path} is readable by others (mode ${mode.toString(8)}); chmod 600 it`);
  return parseSecretKeys(text, `the key file ${path}`);
}

/**
 * The operator keys, from `SECRETS_KEY` or `SECRETS_KEY_FILE`. With neither: on the embedded
 * database a key is generated into `{DATA_DIR}/secrets.key` (mode 0600) at first start and read
 * from there afterwards; on PostgreSQL Cradle refuses to start, since instances that each made their
 * own key could not open each other's values (docs/deployment.md).
 */
export async function loadSecretKeys(o: {
  configured: { text: string } | { file: string } | undefined;
  dataDir: string;
  embedded: boolean;
}): Promise<LoadedSecretKeys> {
  const warnings: string[] = [];
  const c = o.configured;
  if (c && 'text' in c) return { ring: makeSecretKeyring(parseSecretKeys(c.text, 'SECRETS_KEY')), source: { kind: 'env' }, warnings };
  if (c) {
    const path = resolve(c.file);
    return { ring: makeSecretKeyring(await readKeyFile(path, warnings)), source: { kind: 'file', path, generated: false }, warnings };
  }
  if (!o.embedded) {
    throw new SecretBoxError(
      'on PostgreSQL set SECRETS_KEY or SECRETS_KEY_FILE (base64 of 32 random bytes, the same for every instance: openssl rand -base64 32)',
    );
  }
  const path = resolve(join(o.dataDir, GENERATED_KEY_FILE));
  const key = randomBytes(32).toString('base64');
  const text = `# Cradle operator key: opens the webhook signing secrets in ${resolve(o.dataDir)}/pgdata.\n# Keep it apart from backups of the database (docs/deployment.md).\n${key}\n`;
  // `wx`: made once; a file already there (an earlier start) is read, never replaced.
  const made = await writeFile(path, text, { flag: 'wx', mode: 0o600 }).then(
    () => true,
    (e: NodeJS.ErrnoException) => {
      if (e.code === 'EEXIST') return false;
      throw new SecretBoxError(`cannot create the key file ${path}: ${e.code ?? e.message}`);
    },
  );
  return { ring: makeSecretKeyring(await readKeyFile(path, warnings)), source: { kind: 'file', path, generated: made }, warnings };
}
