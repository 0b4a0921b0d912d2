import { performance } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// Idle memory given back (ADR 0020). V8 keeps what a thread's heap grew to: after start-up (module
// sources compiled, schemas and documents built) or a burst of requests, the young generation stays
// at its largest (32 MiB on the main thread) and the old generation keeps its garbage and free
// pages until the next collection, which an idle server never triggers. Node offers no call for
// V8's memory-reducing collection; its `gc` function does it, so that function is taken once from
// a fresh context (never exposed to Cradle's code or its dependencies).

type Gc = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
let collect: Gc | undefined;

/**
 * One collection of this thread's heap that also gives memory back to the system: V8's "last
 * resort" collection compacts the old generation, shrinks the young generation to its initial size
 * and frees the pages that leaves empty. It is synchronous (tens to hundreds of milliseconds); only
 * `startMemoryReclaim` calls it, when the thread is idle.
 */
export function reclaimMemory(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as Gc;
  }
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

export type ThreadSample = {
  /** Share of the time since the previous sample the thread's event loop was busy (0 to 1). */
  busy: number;
  /** The thread's committed V8 heap, in bytes. */
  heapBytes: number;
};

/** A sampler of this thread: event-loop utilisation since its previous call, and the committed heap. */
export function threadSampler(): () => ThreadSample {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, last).utilization;
    last = now;
    return { busy, heapBytes: getHeapStatistics().total_heap_size };
  };
}

export type MemoryReclaimOptions = {
  /** Between two looks at the thread once the first reclaim is done (default 10 s). */
  everyMs?: number;
  /** Until the first reclaim (start-up's garbage): between two looks (default 1 s). */
  firstMs?: number;
  /** The thread counts as idle when its event loop was busy less than this share since the last look (default 0.05). */
  idleBelow?: number;
  /** Heap growth since the last reclaim that is worth another (default 16 MiB). */
  growthBytes?: number;
  /**
   * Heap growth since the last reclaim past which the thread is looked at every `firstMs` rather
   * than every `everyMs` (default 64 MiB): a large job's garbage is given back within a second or
   * two of the thread going quiet, before the next large job grows the process on top of it.
   */
  promptBytes?: number;
  /**
   * Whether the thread waits on no other work (the server: no database statement in flight). A
   * thread awaiting a long statement of a large job is idle by its own clock; collecting then would
   * hold the rest of the job and every request for a heap the job still uses. Default: always.
   */
  quiet?: () => boolean;
  /** Told after each reclaim: how long it held the thread, and the committed heap before and after. */
  onReclaim?: (r: { ms: number; heapBefore: number; heapAfter: number }) => void;
  /** For tests: what is looked at, and what a reclaim does. */
  sample?: () => ThreadSample;
  reclaim?: () => void;
};

/** When the next look is due: soon until the first reclaim, and while the heap is `promptBytes` above the last one's. */
export function nextLookMs(heapBytes: number, after: number | undefined, o: { firstMs: number; everyMs: number; promptBytes: number }): number {
  return after === undefined || heapBytes - after >= o.promptBytes ? o.firstMs : o.everyMs;
}

/**
 * Gives this thread's idle memory back: the first time the thread is idle after it starts, and
 * then whenever it is idle with its heap grown by `growthBytes` since the last time. A busy thread
 * is never collected this way (a request waiting on the collection would be slower); V8's own
 * collections go on as always. The timer never keeps the process alive.
 */
export function startMemoryReclaim(o: MemoryReclaimOptions = {}): { stop(): void } {
  const everyMs = o.everyMs ?? 10_000;
  const firstMs = o.firstMs ?? 1_000;
  const idleBelow = o.idleBelow ?? 0.05;
  const growth = o.growthBytes ?? 16 * 1024 * 1024;
  const promptBytes = o.promptBytes ?? 64 * 1024 * 1024;
  const sample = o.sample ?? threadSampler();
  const reclaim = o.reclaim ?? reclaimMemory;
  // The committed heap after the last reclaim; undefined until the first.
  let after: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const look = (): void => {
    const s = sample();
    let heapNow = s.heapBytes;
    if (s.busy < idleBelow && (after === undefined || s.heapBytes - after >= growth) && (o.quiet?.() ?? true)) {
      const t0 = performance.now();
      reclaim();
      // Sampled again so that the collection's own time is not taken for traffic at the next look.
      after = heapNow = sample().heapBytes;
      o.onReclaim?.({ ms: performance.now() - t0, heapBefore: s.heapBytes, heapAfter: after });
    }
    if (!stopped) timer = setTimeout(look, nextLookMs(heapNow, after, { firstMs, everyMs, promptBytes })).unref();
  };
  timer = setTimeout(look, firstMs).unref();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
