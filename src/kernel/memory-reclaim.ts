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
  /**
   * Between two looks at the thread (default 250 ms). A look costs microseconds; the heap a large
   * job grows is seen within this time whenever the job began.
   */
  lookMs?: number;
  /** Until the first look, start-up's own work done (default 1 s). */
  firstMs?: number;
  /**
   * The window over which a modest growth (`growthBytes`, under `promptBytes`) waits for the thread
   * to be idle, and so the most often it is collected (default 10 s).
   */
  everyMs?: number;
  /** The thread counts as idle when its event loop was busy less than this share of the window (default 0.05). */
  idleBelow?: number;
  /**
   * The share of the last look's interval under which a heap `promptBytes` above the last reclaim
   * is collected (default 0.25): a large job's garbage is given back under steady light traffic
   * too, which may never leave a thread busy under 5 % (the availability bench's probes, about 40
   * small requests a second, keep the main thread at 6-14 %), before the next large job grows the
   * process on top of it. That collection holds requests for tens of milliseconds per hundred MiB.
   */
  promptIdleBelow?: number;
  /** Heap growth since the last reclaim that is worth another once the thread is idle (default 16 MiB). */
  growthBytes?: number;
  /** Heap growth since the last reclaim given back at the next look with light traffic (default 64 MiB). */
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

/**
 * Gives this thread's idle memory back, looking every `lookMs`: the first time the thread is idle
 * after it starts (start-up's garbage); a heap grown by `promptBytes` since the last reclaim as soon
 * as traffic is light; one grown by `growthBytes` once the thread was idle over a whole `everyMs`
 * window.
 * A busy thread is never collected this way (a request waiting on the collection would be slower);
 * V8's own collections go on as always. The timer never keeps the process alive.
 */
export function startMemoryReclaim(o: MemoryReclaimOptions = {}): { stop(): void } {
  const lookMs = o.lookMs ?? 250;
  const firstMs = o.firstMs ?? 1_000;
  const idleBelow = o.idleBelow ?? 0.05;
  const promptIdleBelow = o.promptIdleBelow ?? 0.25;
  const growth = o.growthBytes ?? 16 * 1024 * 1024;
  const promptBytes = o.promptBytes ?? 64 * 1024 * 1024;
  const looksPerWindow = Math.max(1, Math.round((o.everyMs ?? 10_000) / lookMs));
  const sample = o.sample ?? threadSampler();
  const reclaim = o.reclaim ?? reclaimMemory;
  // The committed heap after the last reclaim; undefined until the first.
  let after: number | undefined;
  // The busy shares of the looks of the current `everyMs` window: their sum and count.
  let windowBusy = 0;
  let windowLooks = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  // Before the first reclaim, growth is counted from the smallest heap seen: a server busy from its
  // start (never under 5 %) still gives a large job's garbage back.
  let floor = Infinity;
  const due = (s: ThreadSample): boolean => {
    if (after === undefined) floor = Math.min(floor, s.heapBytes);
    const grown = s.heapBytes - (after ?? floor);
    if (grown >= promptBytes) return s.busy < promptIdleBelow;
    if (after === undefined) return s.busy < idleBelow;
    windowBusy += s.busy;
    if (++windowLooks < looksPerWindow) return false;
    const busy = windowBusy / windowLooks;
    windowBusy = windowLooks = 0;
    return grown >= growth && busy < idleBelow;
  };
  const look = (): void => {
    const s = sample();
    if (due(s) && (o.quiet?.() ?? true)) {
      const t0 = performance.now();
      reclaim();
      // Sampled again so that the collection's own time is not taken for traffic at the next look.
      after = sample().heapBytes;
      windowBusy = windowLooks = 0;
      o.onReclaim?.({ ms: performance.now() - t0, heapBefore: s.heapBytes, heapAfter: after });
    }
    if (!stopped) timer = setTimeout(look, lookMs).unref();
  };
  timer = setTimeout(look, firstMs).unref();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
