import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gates, testPools, WARM_WORKER_TASKS, warmedWorkers } from '../helpers/worker-gates.js';

// Issue 33: a large document ends its worker (its heap is given back), and the next job, often
// another company's one-component push, used to wait for a new worker to load its modules and
// compile its validators. A warm spare is kept ready instead, and the heap a worker's warm-up
// fills does not count toward the bound that ends it.

const task = (fn: string) => ({ module: WARM_WORKER_TASKS, fn });
type Who = { thread: number; warmups: number; ballast: number };

describe('worker pool spare', { timeout: 120_000 }, () => {
  const pool = testPools();
  const warmed = warmedWorkers();

  it("keeps a warm spare after a large job ends its worker: another company's job runs on it while a large job is read", async () => {
    const p = pool({ size: 2, spare: 1, recycleAboveMiB: 16 });
    const before = warmed.ids().length;
    assert.equal(await p.run('A', task('grow'), null), 400_000);
    assert.equal(p.stats().workers, 1, 'the grown worker is gone (the memory bound holds) and its spare is there');
    // A's next large document takes the spare, and the pool starts the next spare at once.
    const g = gates(1);
    const large = p.run<number>('A', task('held'), g.input(0));
    await g.startedOf(0);
    assert.equal(p.stats().workers, 2, 'a spare beside the busy worker');
    await warmed.atLeast(before + 3);
    const warmBeforeB = warmed.ids();
    const b = await p.run<Who>('B', task('whoAmI'), null);
    assert.ok(warmBeforeB.includes(b.thread), "B's job ran on a worker warmed before it came");
    assert.equal(b.warmups, 1);
    assert.equal(b.ballast, 600_000, "the warm-up's work was there for B's job");
    assert.deepEqual(g.started(), [0], "A's large job is still being read");
    g.release(0);
    assert.equal(await large, 0);
  });

  it("does not end a worker for the heap its warm-up filled, only for a job's growth beyond it", async () => {
    const p = pool({ size: 1, recycleAboveMiB: 16 });
    const first = await p.run<Who>('A', task('whoAmI'), null);
    const second = await p.run<Who>('A', task('whoAmI'), null);
    assert.equal(first.warmups, 1, 'the warm-up ran before the first job');
    assert.equal(second.thread, first.thread, 'a small job left its warm worker in place');
    assert.equal(p.stats().workers, 1);
    assert.equal(await p.run('A', task('grow'), null), 400_000);
    assert.equal(p.stats().workers, 0, 'a job that grew the heap past the bound ended its worker');
    const third = await p.run<Who>('A', task('whoAmI'), null);
    assert.notEqual(third.thread, first.thread);
    assert.equal(third.warmups, 1);
  });

  it('starts no spare before the first job, and none after close', async () => {
    const p = pool({ size: 2, spare: 1 });
    assert.equal(p.stats().workers, 0, 'an unused pool holds no memory');
    assert.equal(await p.run('A', task('echo'), 'a'), 'a');
    assert.equal(p.stats().workers, 2, "the job's worker and a spare");
    await p.close();
    assert.equal(p.stats().workers, 0);
  });
});
