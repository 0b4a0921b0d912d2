import { setImmediate as turn } from 'node:timers/promises';
import { after } from 'node:test';
import { createWorkerPool, type WorkerPool } from '../../src/kernel/worker-pool.js';

/** The fixture tasks run by the worker pool tests (test/fixtures/workers/tasks.ts). */
export const WORKER_TASKS = new URL('../fixtures/workers/tasks.ts', import.meta.url).href;

/**
 * Shared flags the `held` fixture task writes and waits on: the test decides when each job ends,
 * so what ran at once and in which order is read, not timed.
 */
export function gates(n: number) {
  const started = new SharedArrayBuffer(4 * n);
  const gatesBuf = new SharedArrayBuffer(4 * n);
  const s = new Int32Array(started);
  const g = new Int32Array(gatesBuf);
  return {
    input: (slot: number) => ({ slot, started, gates: gatesBuf }),
    started: () => [...s].map((v, i) => (v ? i : -1)).filter((i) => i >= 0),
    release(slot: number) {
      Atomics.store(g, slot, 1);
      Atomics.notify(g, slot);
    },
    /** Waits (by event-loop turns, never by time) until `slot` has started. */
    async startedOf(slot: number) {
      while (Atomics.load(s, slot) === 0) await turn();
    },
  };
}

/** Makes pools for one suite (call inside `describe`); they are closed after it. */
export function testPools(): (o: Parameters<typeof createWorkerPool>[0]) => WorkerPool {
  const pools: WorkerPool[] = [];
  after(() => Promise.all(pools.map((p) => p.close())));
  return (o) => {
    const p = createWorkerPool(o);
    pools.push(p);
    return p;
  };
}
