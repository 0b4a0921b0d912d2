import type { WorkerStats } from './pglite-protocol.js';

// When the embedded database's worker is recycled (ADR 0026). PGlite's WebAssembly heap grows to
// the largest statement, answer or sort it has held (a 60,000-component push: about 300 MiB above
// its floor) and never shrinks; closing the instance and opening the same data directory in a new
// worker gives all of it back. That costs the calls made meanwhile a wait (the reopen), so it is
// done only when the database was idle and its heap is far above where it started.

/** What the policy needs of the database (src/db/pglite-remote.ts). */
export type Recyclable = {
  /** Nothing pending, no transaction open. */
  readonly idle: boolean;
  stats(): Promise<WorkerStats>;
  /** Resolves to how long calls were held. */
  recycle(): Promise<number>;
};

export type RecycleOptions = {
  /** Between two looks at the database (default 5 s). */
  everyMs?: number;
  /** The worker counts as idle when its thread was busy less than this share since the last look (default 0.05). */
  idleBelow?: number;
  /** Growth of the WebAssembly heap above its size at the first look after an open that is worth a recycle (default 96 MiB). */
  growthBytes?: number;
  /** Told after each recycle: how long calls were held, and the heap before it. */
  onRecycle?: (r: { heldMs: number; wasmBytesBefore: number; floorBytes: number }) => void;
  /** Told when a recycle failed (the database then answers as stopped, 503). */
  onError?: (e: unknown) => void;
};

export const DEFAULT_RECYCLE_GROWTH_BYTES = 96 * 1024 * 1024;

/** Looks at `db` every `everyMs` and recycles it when idle and its heap grew `growthBytes` above its floor. The timer never keeps the process alive. */
export function startDatabaseRecycle(db: Recyclable, o: RecycleOptions = {}): { stop(): void } {
  const everyMs = o.everyMs ?? 5_000;
  const idleBelow = o.idleBelow ?? 0.05;
  const growth = o.growthBytes ?? DEFAULT_RECYCLE_GROWTH_BYTES;
  // The heap at the first look after the instance opened: what a recycle comes back to.
  let floor: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const look = async (): Promise<void> => {
    if (!db.idle) return;
    const s = await db.stats();
    if (floor === undefined) {
      floor = s.wasmBytes;
      return;
    }
    // Idle now too: the stats call was the only one, and nothing came while it ran.
    if (stopped || s.busy >= idleBelow || s.wasmBytes - floor < growth || !db.idle) return;
    const before = s.wasmBytes;
    const heldMs = await db.recycle();
    o.onRecycle?.({ heldMs, wasmBytesBefore: before, floorBytes: floor });
    floor = undefined;
  };
  const schedule = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      look().then(schedule, (e: unknown) => {
        // A failed recycle leaves the database stopped: nothing more to look at.
        o.onError?.(e);
      });
    }, everyMs).unref();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
