import { randomBytes } from 'node:crypto';
import { link, mkdtemp, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { BackupError, type BackupHeader, cradleVersion, encodeBackup, sha256 } from './backup-format.js';
import { encryptPayload, readRecipient } from './backup-crypto.js';
import { APPLIED_SQL, tagAt } from './migration-level.js';
import { clientMajor, libpqEnv, runPgTool, toolError } from './pg-tools.js';

/** Where the snapshot comes from: the embedded database's image (taken by its holder), or pg_dump. */
export type BackupSource = { kind: 'pglite'; db: Db; image: () => Promise<Blob> } | { kind: 'postgres'; db: Db; databaseUrl: string };

export type BackupOptions = { path: string; encryptTo?: string | undefined; now?: Date };
export type BackupSummary = { path: string; bytes: number; database: 'pglite' | 'postgres'; migrations: number; encryptedTo: string | null; createdAt: string };

async function applied(db: Db): Promise<number> {
  const r = (await db.execute(sql.raw(APPLIED_SQL))) as unknown as { rows: { n: number }[] };
  return Number(r.rows[0]?.n ?? 0);
}

/** pg_dump's custom format of the whole database: one consistent snapshot (repeatable read), taken while instances run. */
async function pgDump(databaseUrl: string, db: Db): Promise<Buffer> {
  const r = (await db.execute(sql`select current_setting('server_version_num')::int as v`)) as unknown as { rows: { v: number }[] };
  const server = Math.floor(Number(r.rows[0]?.v ?? 0) / 10_000);
  const client = await clientMajor('pg_dump');
  if (client < server) throw new BackupError(`pg_dump ${client} cannot dump a PostgreSQL ${server} server: install postgresql-client-${server} or newer`);
  const dir = await mkdtemp(join(tmpdir(), 'cradle-backup-'));
  try {
    const file = join(dir, 'dump');
    const run = await runPgTool('pg_dump', ['--format=custom', '--compress=6', `--file=${file}`], libpqEnv(databaseUrl));
    if (run.code !== 0) throw new BackupError(`pg_dump failed: ${toolError(run)}`);
    return await readFile(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Takes a backup into `path` (docs/backup.md): a consistent snapshot, checksummed, optionally
 * encrypted to an operator's OpenPGP key. Never holds the operator key (it is not in the database).
 * The file appears whole or not at all (written beside it, then linked into place; an existing file
 * is never replaced).
 */
export async function takeBackup(src: BackupSource, opts: BackupOptions): Promise<BackupSummary> {
  const recipient = opts.encryptTo ? await readRecipient(opts.encryptTo) : undefined;
  const createdAt = (opts.now ?? new Date()).toISOString();
  const migrations = await applied(src.db);
  let plain: Uint8Array;
  if (src.kind === 'pglite') {
    const image = new Uint8Array(await (await src.image()).arrayBuffer());
    plain = await promisify(gzip)(image);
  } else {
    plain = await pgDump(src.databaseUrl, src.db);
  }
  const stored = recipient ? await encryptPayload(plain, recipient.armored) : plain;
  const header: BackupHeader = {
    format: 1,
    cradleVersion: cradleVersion(),
    database: src.kind,
    payload: src.kind === 'pglite' ? 'pglite-datadir.tar.gz' : 'pg_dump-custom',
    migrations: { applied: migrations, last: tagAt(migrations) },
    createdAt,
    encryptedTo: recipient?.fingerprint ?? null,
    payloadBytes: stored.byteLength,
    plainSha256: sha256(plain),
  };
  const bytes = encodeBackup(header, stored);
  const partial = join(dirname(opts.path), `.${randomBytes(6).toString('hex')}.cradle-backup-partial`);
  await writeFile(partial, bytes, { mode: 0o600, flag: 'wx' }).catch((e: NodeJS.ErrnoException) => {
    throw new BackupError(`cannot write in ${dirname(opts.path)}: ${e.code ?? e.message}`);
  });
  try {
    await link(partial, opts.path).catch((e: NodeJS.ErrnoException) => {
      throw new BackupError(
        e.code === 'EEXIST' ? `${opts.path} already exists: choose another file name` : `cannot write ${opts.path}: ${e.code ?? e.message}`,
      );
    });
  } finally {
    await unlink(partial).catch(() => undefined);
  }
  return { path: opts.path, bytes: bytes.length, database: src.kind, migrations, encryptedTo: header.encryptedTo, createdAt };
}
