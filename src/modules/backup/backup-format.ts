import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { AppError, ErrorCode } from '../../kernel/errors.js';

/**
 * The backup file (docs/backup.md "The file"): a magic line, one line of JSON header, the payload
 * (`payloadBytes` bytes), and a trailer line holding the SHA-256 of everything before it. The
 * checksum covers the header too, so a changed byte anywhere is found; a file cut short has no
 * trailer (or one that does not match) and is refused before anything is read from the payload.
 */
export const MAGIC = 'CRADLE-BACKUP 1\n';
const TRAILER_PREFIX = '\nCRADLE-BACKUP-SHA256 ';
// "\nCRADLE-BACKUP-SHA256 " + 64 hex digits + "\n"
const TRAILER_BYTES = TRAILER_PREFIX.length + 64 + 1;

export const BackupHeader = z.strictObject({
  format: z.literal(1),
  cradleVersion: z.string().min(1),
  database: z.enum(['pglite', 'postgres']),
  /** What the payload is once decrypted: PGlite's data directory as a gzipped tar, or pg_dump's custom format. */
  payload: z.enum(['pglite-datadir.tar.gz', 'pg_dump-custom']),
  /** Migrations applied in the backed-up database, and the last one's tag. */
  migrations: z.strictObject({ applied: z.number().int().min(0), last: z.string() }),
  createdAt: z.iso.datetime(),
  /** Encrypted to an operator's OpenPGP key (its fingerprint), or not. */
  encryptedTo: z
    .string()
    .regex(/^[0-9a-f]{40,64}$/)
    .nullable(),
  payloadBytes: z.number().int().min(1),
  /** SHA-256 of the decrypted payload: checked again after decryption. */
  plainSha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type BackupHeader = z.infer<typeof BackupHeader>;

/** A backup that cannot be used (or made), with the reason an operator can act on; it crosses the operator socket intact. */
export class BackupError extends AppError {
  constructor(message: string) {
    super(ErrorCode.UNPROCESSABLE, message);
  }
}

export const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/** The whole file for a header and its (possibly encrypted) payload. */
export function encodeBackup(header: BackupHeader, payload: Uint8Array): Buffer {
  if (header.payloadBytes !== payload.byteLength) throw new Error('payloadBytes does not match the payload');
  const head = Buffer.from(`${MAGIC}${JSON.stringify(BackupHeader.parse(header))}\n`, 'utf8');
  const hash = createHash('sha256').update(head).update(payload).digest('hex');
  return Buffer.concat([head, payload, Buffer.from(`${TRAILER_PREFIX}${hash}\n`, 'utf8')]);
}

export type ReadBackup = { header: BackupHeader; payload: Buffer };

/** Reads and checks a backup's structure and checksum: the header and the stored payload, or a BackupError. */
export function decodeBackup(bytes: Buffer): ReadBackup {
  if (bytes.length < MAGIC.length || bytes.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) {
    throw new BackupError('not a Cradle backup: the file does not start with "CRADLE-BACKUP 1"');
  }
  const trailerAt = bytes.length - TRAILER_BYTES;
  const trailer = trailerAt > MAGIC.length ? bytes.subarray(trailerAt).toString('latin1') : '';
  const m = /^\nCRADLE-BACKUP-SHA256 ([0-9a-f]{64})\n$/.exec(trailer);
  if (!m) throw new BackupError('the backup is truncated or damaged: its closing checksum line is missing (the file was cut short, or changed at its end)');
  const body = bytes.subarray(0, trailerAt);
  if (sha256(body) !== m[1]) throw new BackupError('the backup is damaged: its SHA-256 checksum does not match its contents');
  const headEnd = body.indexOf(0x0a, MAGIC.length);
  if (headEnd < 0) throw new BackupError('the backup is damaged: its header line is not closed');
  let header: BackupHeader;
  try {
    header = BackupHeader.parse(JSON.parse(body.subarray(MAGIC.length, headEnd).toString('utf8')));
  } catch (e) {
    throw new BackupError(`the backup's header is not valid: ${(e as Error).message.split('\n')[0]}`);
  }
  const payload = body.subarray(headEnd + 1);
  if (payload.length !== header.payloadBytes) {
    throw new BackupError(`the backup is incomplete: its header announces ${header.payloadBytes} payload bytes and it holds ${payload.length}`);
  }
  return { header, payload };
}

/** This Cradle's version (package.json; src/ and dist/ sit at the same depth). */
export const cradleVersion = (): string => (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
