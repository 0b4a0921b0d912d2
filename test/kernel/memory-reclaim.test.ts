import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { reclaimMemory, startMemoryReclaim, type ThreadSample } from '../../src/kernel/memory-reclaim.js';

const MiB = 1024 * 1024;
const youngBytes = (): number => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size ?? NaN;

/** Runs the policy over `samples` (one per look) and answers the looks at which it reclaimed. */
async function reclaimsAt(samples: (ThreadSample & { quiet?: boolean })[], windowLooks = 1): Promise<number[]> {
  const reclaimed: number[] = [];
  const told: number[] = [];
  let look = -1;
  let justReclaimed = false;
  // The reclaim's timer never keeps a process alive: this test's own does.
  const alive = setInterval(() => undefined, 1000);
  await new Promise<void>((done) => {
    const r = startMemoryReclaim({
      firstMs: 1,
      lookMs: 1,
      everyMs: windowLooks,
      growthBytes: 16 * MiB,
      quiet: () => samples[Math.min(look, samples.length - 1)]?.quiet ?? true,
      sample: () => {
        // A reclaim samples once more (the heap it left): that is the same look, not the next.
        if (justReclaimed) justReclaimed = false;
        else look++;
        if (look === samples.length - 1) {
          r.stop();
          done();
        }
        return samples[Math.min(look, samples.length - 1)] as ThreadSample;
      },
      reclaim: () => {
        justReclaimed = true;
        reclaimed.push(look);
      },
      onReclaim: (r) => told.push(r.heapBefore / MiB),
    });
  });
  clearInterval(alive);
  assert.equal(told.length, reclaimed.length, 'onReclaim is told of every reclaim');
  return reclaimed;
}

describe('idle memory reclaim', () => {
  it('gives back the young generation and the garbage of the old one', () => {
    // Survivors grow the young generation (V8 doubles it while objects survive its collections).
    const keep: { i: number; s: string }[] = [];
    for (let i = 0; i < 1_500_000; i++) keep.push({ i, s: `item ${i}` });
    assert.equal(keep.length, 1_500_000);
    keep.length = 0;
    const before = { young: youngBytes(), heap: getHeapStatistics().total_heap_size };
    reclaimMemory();
    const after = { young: youngBytes(), heap: getHeapStatistics().total_heap_size };
    assert.ok(after.young < before.young, `young generation ${before.young / MiB} -> ${after.young / MiB} MiB`);
    assert.ok(after.young <= 4 * MiB, `young generation after: ${after.young / MiB} MiB`);
    assert.ok(before.heap - after.heap >= 32 * MiB, `committed heap ${before.heap / MiB} -> ${after.heap / MiB} MiB`);
  });

  it('reclaims at the first idle look, never while busy, and again only after the heap grew', async () => {
    const at = await reclaimsAt([
      { busy: 0.6, heapBytes: 90 * MiB }, // start-up still busy: waits
      { busy: 0.01, heapBytes: 90 * MiB }, // idle: start-up's garbage goes
      { busy: 0.01, heapBytes: 100 * MiB }, // idle, but grew by less than 16 MiB since
      { busy: 0.5, heapBytes: 120 * MiB }, // grew, but busy
      { busy: 0.01, heapBytes: 120 * MiB }, // grew and idle
      { busy: 0.01, heapBytes: 120 * MiB },
    ]);
    assert.deepEqual(at, [1, 4]);
  });

  it("under steady light traffic, gives back a large job's garbage but not a small growth", async () => {
    const at = await reclaimsAt([
      { busy: 0.01, heapBytes: 90 * MiB }, // start-up's garbage
      { busy: 0.15, heapBytes: 120 * MiB }, // light traffic, grown by less than 64 MiB: waits for idle
      { busy: 0.15, heapBytes: 200 * MiB }, // light traffic after a large job: given back
      { busy: 0.4, heapBytes: 300 * MiB }, // another large job, the thread well busy: waits
      { busy: 0.1, heapBytes: 300 * MiB }, // its garbage, light traffic again
      { busy: 0.1, heapBytes: 300 * MiB },
    ]);
    assert.deepEqual(at, [0, 2, 4]);
  });

  it("gives back a large job's heap of a thread busy from its start, which never had its first reclaim", async () => {
    const at = await reclaimsAt([
      { busy: 0.08, heapBytes: 80 * MiB }, // light traffic from the start: never idle
      { busy: 0.08, heapBytes: 76 * MiB },
      { busy: 0.08, heapBytes: 130 * MiB }, // grown, but less than 64 MiB above the smallest heap seen
      { busy: 0.4, heapBytes: 200 * MiB }, // a large job, busy
      { busy: 0.1, heapBytes: 200 * MiB }, // its garbage, light traffic: given back
      { busy: 0.1, heapBytes: 200 * MiB },
    ]);
    assert.deepEqual(at, [4]);
  });

  it('waits while the thread waits on other work (a database statement in flight)', async () => {
    const at = await reclaimsAt([
      { busy: 0.01, heapBytes: 90 * MiB, quiet: false }, // idle by its own clock, a statement in flight
      { busy: 0.01, heapBytes: 90 * MiB, quiet: true },
      { busy: 0.01, heapBytes: 200 * MiB, quiet: false }, // a large job between two statements
      { busy: 0.01, heapBytes: 200 * MiB, quiet: true }, // its garbage, nothing in flight
      { busy: 0.01, heapBytes: 200 * MiB },
    ]);
    assert.deepEqual(at, [1, 3]);
  });

  it('collects a modest growth only once the thread was idle over a whole window, a large one at the next light look', async () => {
    const at = await reclaimsAt(
      [
        { busy: 0.01, heapBytes: 90 * MiB }, // start-up's garbage
        // Grown 30 MiB; a window of four looks averaging 10 % busy, two of them idle: waits.
        { busy: 0.01, heapBytes: 120 * MiB },
        { busy: 0.19, heapBytes: 120 * MiB },
        { busy: 0.19, heapBytes: 120 * MiB },
        { busy: 0.01, heapBytes: 120 * MiB },
        // The next window idle throughout: collected at its end.
        { busy: 0.01, heapBytes: 120 * MiB },
        { busy: 0.01, heapBytes: 120 * MiB },
        { busy: 0.01, heapBytes: 120 * MiB },
        { busy: 0.01, heapBytes: 120 * MiB },
        // A large job's heap, mid-window: collected at its first light look, the window not awaited.
        { busy: 0.6, heapBytes: 260 * MiB },
        { busy: 0.2, heapBytes: 260 * MiB },
        { busy: 0.01, heapBytes: 260 * MiB },
      ],
      4,
    );
    assert.deepEqual(at, [0, 8, 10]);
  });
});
