import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { RemotePglite } from '../../db/pglite-remote.js';
import { GENERATED_KEY_FILE } from '../../kernel/secret-keys.js';
import { BackupError, type BackupHeader } from './backup-format.js';
import { APPLIED_SQL } from './migration-level.js';
import { libpqEnv, runPgTool, toolError } from './pg-tools.js';
import { assertRestorable, checkPayload, type KeyOptions, openBackup, pgliteImage } from './verify-backup.js';

/**
 * The embedded target comes with the data folder's lock (the operator's instance lock, ADR 0003),
 * taken for the restore so that no server opens the folder while it is written.
 */
export type RestoreTarget =
  { kind: 'pglite'; dataDir: string; lock: (dataDir: string) => Promise<() => Promise<void>> } | { kind: 'postgres'; databaseUrl: string };
export type RestoreSummary = { header: BackupHeader; target: string };

/** What may already sit in a data folder a backup is restored into: the operator key, put back first. */
const ALLOWED_IN_EMPTY_FOLDER = new Set([GENERATED_KEY_FILE]);

function assertEmptyFolder(dir: string): void {
  if (!existsSync(dir)) return;
  const found = readdirSync(dir).filter((n) => !ALLOWED_IN_EMPTY_FOLDER.has(n));
  if (found.length > 0) {
    throw new BackupError(
      `${dir} (DATA_DIR) is not empty (it holds ${found.slice(0, 3).join(', ')}${found.length > 3 ? ', ...' : ''}): restore into an empty folder only; nothing was written`,
    );
  }
}

async function assertEmptyDatabase(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect().catch((e: unknown) => {
    throw new BackupError(`cannot connect to the target database (DATABASE_URL): ${(e as Error).message}`);
  });
  try {
    const r = await client.query<{ n: number; example: string | null }>(
      `select count(*)::int as n, min(n.nspname || '.' || c.relname) as example from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_toast%' and n.nspname not like 'pg\\_temp%'`,
    );
    const row = r.rows[0];
    if (row && row.n > 0) {
      throw new BackupError(
        `the target database is not empty (it holds ${row.n} relations, such as ${row.example}): restore into an empty database only; nothing was written`,
      );
    }
  } finally {
    await client.end();
  }
}

async function restorePglite(dataDir: string, lock: (dataDir: string) => Promise<() => Promise<void>>, plain: Uint8Array, header: BackupHeader): Promise<void> {
  const release = await lock(dataDir);
  const pgdata = join(dataDir, 'pgdata');
  try {
    if (existsSync(pgdata)) throw new BackupError(`${dataDir} (DATA_DIR) gained a database while the backup was checked; nothing was written`);
    const image = await pgliteImage(plain);
    try {
      const client = await RemotePglite.start({
        dataDir: pgdata,
        image: image.buffer.slice(image.byteOffset, image.byteOffset + image.byteLength) as ArrayBuffer,
        liftoffOnly: true,
      });
      try {
        const r = await client.query<{ n: number }>(APPLIED_SQL);
        if (Number(r.rows[0]?.n) !== header.migrations.applied) throw new BackupError('the restored database does not hold the migrations of the backup');
      } finally {
        await client.close();
      }
    } catch (e) {
      // Nothing half-done stays: the folder is as it was.
      await rm(pgdata, { recursive: true, force: true });
      throw e;
    }
  } finally {
    await release();
  }
}

async function restorePostgres(databaseUrl: string, plain: Uint8Array): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cradle-restore-'));
  try {
    const file = join(dir, 'dump');
    await writeFile(file, plain, { mode: 0o600 });
    const env = libpqEnv(databaseUrl);
    // One transaction: a failure leaves the database as empty as it was. Owners and grants are the
    // target's own (Cradle grants its role its rights again at start).
    const r = await runPgTool(
      'pg_restore',
      ['--single-transaction', '--exit-on-error', '--no-owner', '--no-privileges', `--dbname=${env.PGDATABASE ?? env.PGUSER ?? 'postgres'}`, file],
      env,
    );
    if (r.code !== 0) throw new BackupError(`pg_restore failed, and the database was left empty: ${toolError(r)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `cradle restore`: into an empty data folder or an empty database only. The whole backup is
 * checked first (checksum, header, decryption, a database that opens), so a damaged or cut file is
 * refused before the target is touched.
 */
export async function restoreBackup(path: string, target: RestoreTarget, keys: KeyOptions): Promise<RestoreSummary> {
  const { header, plain } = await openBackup(path, keys);
  if (!plain) throw new BackupError(`the backup is encrypted to ${header.encryptedTo}: give its private key with --decrypt-with`);
  assertRestorable(header);
  if (header.database !== target.kind) {
    throw new BackupError(
      header.database === 'pglite'
        ? 'this backup is of the embedded database: restore it without DATABASE_URL, into DATA_DIR'
        : 'this backup is of a PostgreSQL database: restore it with DATABASE_URL set to an empty database',
    );
  }
  if (target.kind === 'pglite') {
    const dir = resolve(target.dataDir);
    assertEmptyFolder(dir);
    await checkPayload(header, plain);
    await restorePglite(dir, target.lock, plain, header);
    return { header, target: dir };
  }
  await assertEmptyDatabase(target.databaseUrl);
  await checkPayload(header, plain);
  await restorePostgres(target.databaseUrl, plain);
  return { header, target: 'DATABASE_URL' };
}
