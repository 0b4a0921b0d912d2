import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import lockfile from 'proper-lockfile';

/**
 * The embedded database may be opened by one process only: PGlite has no multi-process
 * coordination, and two writers corrupt it. Whoever opens DATA_DIR (server or CLI) first takes
 * this lock. A lock whose holder died goes stale after STALE_MS (its mtime stops being refreshed).
 */
const STALE_MS = 10_000;

export type Release = () => Promise<void>;

export const lockPath = (dataDir: string): string => join(resolve(dataDir), 'cradle.lock');
export const socketPath = (dataDir: string): string => join(resolve(dataDir), 'cradle.sock');

export class LockHeldError extends Error {
  override name = 'LockHeldError';
}

/**
 * Takes the lock, waiting up to `waitMs` (a server restarting after a crash waits for the stale lock
 * to expire; the CLI does not wait, it talks to the holder instead).
 */
export async function acquireInstanceLock(dataDir: string, opts: { waitMs?: number; onCompromised?: (err: Error) => void } = {}): Promise<Release> {
  mkdirSync(dataDir, { recursive: true });
  const waitMs = opts.waitMs ?? 0;
  try {
    return await lockfile.lock(resolve(dataDir), {
      lockfilePath: lockPath(dataDir),
      stale: STALE_MS,
      update: STALE_MS / 4,
      realpath: false,
      retries: waitMs > 0 ? { retries: Math.ceil(waitMs / 500), minTimeout: 500, maxTimeout: 500, factor: 1 } : 0,
      onCompromised:
        opts.onCompromised ??
        ((err) => {
          throw err;
        }),
    });
  } catch (e) {
    if ((e as { code?: string }).code === 'ELOCKED') {
      throw new LockHeldError(`the embedded database in ${resolve(dataDir)} is in use by another Cradle process`);
    }
    throw e;
  }
}
