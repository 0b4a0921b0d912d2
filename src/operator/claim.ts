import { setTimeout as sleep } from 'node:timers/promises';
import { acquireInstanceLock, LockHeldError, type Release, socketPath } from './instance-lock.js';
import { operatorSocketAlive } from './operator-client.js';

export type Claim = { kind: 'lock'; release: Release } | { kind: 'server'; socket: string };

/**
 * Who gets to touch the embedded database in DATA_DIR: either we take its lock, or a live server
 * holds it and answers on its operator socket. A holder that neither answers nor refreshes its lock
 * (crashed) loses it once the lock goes stale; a holder that is still opening the database answers
 * shortly. Polls both until one happens or `waitMs` passes.
 */
export async function claimDataDir(dataDir: string, opts: { waitMs?: number; onCompromised?: (e: Error) => void } = {}): Promise<Claim> {
  const deadline = Date.now() + (opts.waitMs ?? 15_000);
  const socket = socketPath(dataDir);
  for (;;) {
    try {
      return { kind: 'lock', release: await acquireInstanceLock(dataDir, { onCompromised: opts.onCompromised }) };
    } catch (e) {
      if (!(e instanceof LockHeldError)) throw e;
      if (await operatorSocketAlive(socket)) return { kind: 'server', socket };
      if (Date.now() > deadline) throw e;
      await sleep(250);
    }
  }
}
