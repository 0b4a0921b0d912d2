import { createWorkerPool, type WorkerPool } from './worker-pool.js';

// The process's one offload pool (src/kernel/worker-pool.ts) and who holds it open.

let shared: WorkerPool | undefined;
let holders = 0;

/**
 * The process's one pool for CPU-heavy work off the event loop, keyed by company: reading pushed
 * documents (SBOM, SARIF) and the built-in triage's similarity search. Its workers'
 * old generation is bounded well above the largest accepted document's tree (a 43 MiB SBOM of
 * 100,000 components needs about 400 MiB), so only a pathological document meets the bound, and it
 * ends its worker, not the process; the young generation is kept small because its semi-spaces are
 * resident memory a parse fills at once (docs/evidence.md "Memory"). One spare worker, warm (its
 * task modules loaded and their validators compiled), is kept ready while the pool is in use, so a
 * small push never waits for a worker's start after another company's large document ended one.
 */
export function offloadPool(): WorkerPool {
  shared ??= createWorkerPool({ spare: 1, resourceLimits: { maxOldGenerationSizeMb: 1536, maxYoungGenerationSizeMb: 4 } });
  return shared;
}

/** The pool if one is open, without starting one (metrics read it at scrape time). */
export function openOffloadPool(): WorkerPool | undefined {
  return shared;
}

/**
 * Holds the process's pool open until the returned release is called: the application (its
 * `onClose`) and the triage job runner (its `stop`) each hold it, and the last release closes it,
 * so the workers end after the last holder's jobs finish, and a job submitted to it afterwards is
 * refused (UNAVAILABLE). A later `offloadPool()` (another application in the same test process)
 * starts a new pool.
 */
export function holdOffloadPool(): () => Promise<void> {
  const pool = offloadPool();
  holders++;
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    if (--holders > 0) return;
    if (shared === pool) shared = undefined;
    await pool.close();
  };
}
