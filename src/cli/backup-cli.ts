import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { BackupError } from '../modules/backup/backup-format.js';
import { restoreBackup } from '../modules/backup/restore-backup.js';
import { type BackupSummary, takeBackup } from '../modules/backup/take-backup.js';
import { verifyBackup } from '../modules/backup/verify-backup.js';
import { claimDataDir } from '../operator/claim.js';
import { runCommand } from '../operator/commands.js';
import { sendOperatorCommand } from '../operator/operator-client.js';
import { acquireInstanceLock } from '../operator/instance-lock.js';

/** The backup commands: they work on files and whole databases, so the CLI runs them itself (docs/backup.md). */
export type BackupCli =
  | { local: 'backup'; file: string; keyFile: string | undefined; json: boolean }
  | { local: 'backup.verify' | 'restore'; file: string; keyFile: string | undefined; json: boolean };

const readKeyFile = (path: string | undefined, option: string): Promise<string | undefined> =>
  path === undefined
    ? Promise.resolve(undefined)
    : readFile(path, 'utf8').catch((e: NodeJS.ErrnoException) => {
        throw new BackupError(`${option}: cannot read ${path}: ${e.code ?? e.message}`);
      });

async function backup(file: string, encryptTo: string | undefined): Promise<BackupSummary> {
  const config = loadConfig();
  if (config.databaseUrl) {
    const database = await openDatabase({ databaseUrl: config.databaseUrl, poolSize: 1 });
    try {
      return await takeBackup({ kind: 'postgres', db: database.db, databaseUrl: config.databaseUrl }, { path: file, encryptTo });
    } finally {
      await database.close();
    }
  }
  const folder = resolve(config.dataDir);
  if (!existsSync(join(folder, 'pgdata', 'PG_VERSION'))) throw new BackupError(`there is no Cradle database in ${folder} (DATA_DIR); nothing was written`);
  // Never a copy of the live folder: the holder of the database (a running server, or this process
  // under the lock) takes the image between transactions.
  const claim = await claimDataDir(config.dataDir);
  const args = { path: file, ...(encryptTo ? { encryptTo } : {}) };
  if (claim.kind === 'server') return (await sendOperatorCommand(claim.socket, { command: 'backup.create', args }, 10_000)) as BackupSummary;
  try {
    const database = await openDatabase({ dataDir: config.dataDir });
    try {
      return (await runCommand(database.db, 'backup.create', args, { vulndb: config.vulndb, image: database.image })) as BackupSummary;
    } finally {
      await database.close();
    }
  } finally {
    await claim.release();
  }
}

export async function runBackupCli(cli: BackupCli): Promise<unknown> {
  const file = resolve(cli.file);
  if (cli.local === 'backup') return backup(file, await readKeyFile(cli.keyFile, '--encrypt-to'));
  const keys = { decryptWith: await readKeyFile(cli.keyFile, '--decrypt-with'), passphrase: process.env.CRADLE_BACKUP_PASSPHRASE };
  if (cli.local === 'backup.verify') return verifyBackup(file, keys);
  const config = loadConfig();
  return restoreBackup(
    file,
    config.databaseUrl
      ? { kind: 'postgres', databaseUrl: config.databaseUrl }
      : { kind: 'pglite', dataDir: config.dataDir, lock: (dir) => acquireInstanceLock(dir) },
    keys,
  );
}

/** The line printed for a backup command. */
export function describeBackup(cli: BackupCli, result: unknown): string {
  if (cli.local === 'backup') {
    const r = result as BackupSummary;
    return `wrote ${r.path} (${r.bytes} bytes, ${r.database}, ${r.migrations} migrations${r.encryptedTo ? `, encrypted to ${r.encryptedTo}` : ', not encrypted'}); the operator key is not in it: back it up separately (docs/backup.md)`;
  }
  const r = result as {
    header: { database: string; cradleVersion: string; createdAt: string; migrations: { applied: number; last: string }; encryptedTo: string | null };
  };
  const h = r.header;
  const what = `${h.database} backup of ${h.createdAt} by Cradle ${h.cradleVersion}, ${h.migrations.applied} migrations (${h.migrations.last || 'none'})`;
  if (cli.local === 'restore') return `restored the ${what} into ${(result as { target: string }).target}; start the server with the same operator key`;
  if (!(result as { payloadChecked: boolean }).payloadChecked)
    return `checksum and header good: ${what}; encrypted to ${h.encryptedTo}: give --decrypt-with to check that it decrypts and holds a whole database`;
  return `good: ${what}; checksum, header${h.encryptedTo ? ', decryption' : ''} and a complete database checked`;
}
