import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { RemotePglite } from '../../db/pglite-remote.js';
import { BackupError, type BackupHeader, decodeBackup, sha256 } from './backup-format.js';
import { decryptPayload } from './backup-crypto.js';
import { APPLIED_SQL, journal } from './migration-level.js';
import { runPgTool, toolError } from './pg-tools.js';

export type KeyOptions = { decryptWith?: string | undefined; passphrase?: string | undefined };
/** A backup read and checked: its header, and its decrypted payload unless it is encrypted and no key was given. */
export type OpenedBackup = { header: BackupHeader; plain: Uint8Array | undefined };

/** Reads a backup file and checks its checksum, header and (with the key) decryption. Throws BackupError. */
export async function openBackup(path: string, keys: KeyOptions): Promise<OpenedBackup> {
  const bytes = await readFile(path).catch((e: NodeJS.ErrnoException) => {
    throw new BackupError(`cannot read ${path}: ${e.code ?? e.message}`);
  });
  const { header, payload } = decodeBackup(bytes);
  if (header.encryptedTo && !keys.decryptWith) return { header, plain: undefined };
  if (!header.encryptedTo && keys.decryptWith) throw new BackupError('the backup is not encrypted: leave out --decrypt-with');
  const plain = header.encryptedTo ? await decryptPayload(payload, keys.decryptWith ?? '', keys.passphrase) : payload;
  if (sha256(plain) !== header.plainSha256) throw new BackupError('the backup is damaged: the decrypted payload does not match its SHA-256 in the header');
  return { header, plain };
}

/** The embedded database's image, unpacked; a cut or damaged archive is a BackupError. */
export async function pgliteImage(plain: Uint8Array): Promise<Buffer> {
  return promisify(gunzip)(plain).catch((e: unknown) => {
    throw new BackupError(`the backup's data directory archive is damaged: ${(e as Error).message}`);
  });
}

/**
 * Opens the embedded database's image in memory and reads its migration count: the payload is a
 * whole database, not just well-formed bytes.
 */
async function checkPglite(header: BackupHeader, plain: Uint8Array): Promise<void> {
  const image = await pgliteImage(plain);
  if (image.subarray(257, 262).toString('latin1') !== 'ustar') throw new BackupError('the backup does not hold a data directory archive (tar)');
  const client = await RemotePglite.start({
    image: image.buffer.slice(image.byteOffset, image.byteOffset + image.byteLength) as ArrayBuffer,
    liftoffOnly: true,
  }).catch((e: unknown) => {
    throw new BackupError(`the backup's database does not open: ${(e as Error).message}`);
  });
  try {
    const r = await client.query<{ n: number }>(APPLIED_SQL);
    const n = Number(r.rows[0]?.n ?? -1);
    if (n !== header.migrations.applied) throw new BackupError(`the backup's database holds ${n} migrations, its header says ${header.migrations.applied}`);
    await client.query('select count(*) from companies');
  } catch (e) {
    if (e instanceof BackupError) throw e;
    throw new BackupError(`the backup's database is incomplete: ${(e as Error).message}`);
  } finally {
    await client.close();
  }
}

/** pg_restore reads the dump's table of contents, which must list Cradle's tables and its migrations. */
async function checkPgDump(plain: Uint8Array): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cradle-verify-'));
  try {
    const file = join(dir, 'dump');
    await writeFile(file, plain, { mode: 0o600 });
    const r = await runPgTool('pg_restore', ['--list', file], process.env);
    if (r.code !== 0) throw new BackupError(`the backup's dump is not readable by pg_restore: ${toolError(r)}`);
    for (const needed of ['TABLE DATA public companies ', 'TABLE DATA drizzle __drizzle_migrations ']) {
      if (!r.stdout.includes(needed)) throw new BackupError(`the backup's dump is incomplete: it has no ${needed.trim()}`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Refuses a backup made by a newer Cradle (more migrations than this one knows). */
export function assertRestorable(header: BackupHeader): void {
  const known = journal().length;
  if (header.migrations.applied > known) {
    throw new BackupError(
      `the backup was made by Cradle ${header.cradleVersion} with ${header.migrations.applied} migrations; this Cradle knows ${known}: restore with that version or newer`,
    );
  }
}

export type VerifyResult = { header: BackupHeader; payloadChecked: boolean };

/** `cradle backup verify`: checksum, header, decryption (with the key), and a complete database in the payload. */
export async function verifyBackup(path: string, keys: KeyOptions): Promise<VerifyResult> {
  const { header, plain } = await openBackup(path, keys);
  if (!plain) return { header, payloadChecked: false };
  await checkPayload(header, plain);
  return { header, payloadChecked: true };
}

export async function checkPayload(header: BackupHeader, plain: Uint8Array): Promise<void> {
  if (header.payload === 'pglite-datadir.tar.gz') await checkPglite(header, plain);
  else await checkPgDump(plain);
}
