import { setImmediate as turn } from 'node:timers/promises';
import { after } from 'node:test';
import { BroadcastChannel } from 'node:worker_threads';
import { createWorkerPool, type WorkerPool } from '../../src/kernel/worker-pool.js';
import { WARMED_CHANNEL } from '../fixtures/workers/warm-tasks.js';

/** The fixture tasks run by the worker pool tests (test/fixtures/workers/tasks.ts). */
export const WORKER_TASKS = new URL('../fixtures/workers/tasks.ts', import.meta.url).href;
/** The same tasks in a module with a `warmUp` (test/fixtures/workers/warm-tasks.ts). */
export const WARM_WORKER_TASKS = new URL('../fixtures/workers/warm-tasks.ts', import.meta.url).href;

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

/** The thread ids of the pool workers whose warm-up ran (the fixture's `warmUp` announces each). */
export function warmedWorkers() {
  const ids: number[] = [];
  const channel = new BroadcastChannel(WARMED_CHANNEL);
  channel.onmessage = (e) => void ids.push((e as { data: number }).data);
  channel.unref();
  after(() => channel.close());
  return {
    ids: () => [...ids],
    /** Waits (by event-loop turns, never by time) until `n` workers have warmed. */
    async atLeast(n: number) {
      while (ids.length < n) await turn();
    },
  };
}
