import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../src/kernel/errors.js';
import { gates, testPools, WORKER_TASKS } from '../helpers/worker-gates.js';

// Issue 24, finding 3: jobs run off the event loop, in order per company, bounded per company and
// in all; a bad job answers with its AppError and a crashed or exhausted worker is replaced.

const task = (fn: string) => ({ module: WORKER_TASKS, fn });

describe('worker pool', { timeout: 180_000 }, () => {
  const pool = testPools();

  it('runs one job per company at a time, in order, at most `size` in all, and takes companies in turn', async () => {
    const p = pool({ size: 2 });
    const g = gates(5);
    const done: number[] = [];
    const run = (key: string, slot: number) => p.run<number>(key, task('held'), g.input(slot)).then((v) => void done.push(v));
    // Company A queues three, then B and C one each.
    const all = [run('A', 0), run('A', 1), run('A', 2), run('B', 3), run('C', 4)];
    await g.startedOf(0);
    await g.startedOf(3);
    assert.deepEqual(g.started(), [0, 3], "A's second job waits for its first; C waits for a free worker");
    assert.deepEqual(p.stats(), { running: 2, queued: 3, workers: 2 });
    g.release(0);
    // A was served last: C goes before A's second job.
    await g.startedOf(4);
    assert.deepEqual(g.started(), [0, 3, 4]);
    g.release(3);
    await g.startedOf(1);
    assert.deepEqual(g.started(), [0, 1, 3, 4], "A's jobs start in the order they came");
    // Released one after the other, so that the order they end in is the test's, not the scheduler's.
    g.release(4);
    await all[4];
    g.release(1);
    await g.startedOf(2);
    g.release(2);
    await Promise.all(all);
    assert.deepEqual(done, [0, 3, 4, 1, 2]);
  });

  it("refuses a company's job beyond its queue bound, not another company's", async () => {
    const p = pool({ size: 1, maxQueuedPerKey: 1 });
    const g = gates(3);
    const first = p.run('A', task('held'), g.input(0));
    await g.startedOf(0);
    const second = p.run('A', task('held'), g.input(1));
    await assert.rejects(
      p.run('A', task('echo'), 'third'),
      (e: unknown) => e instanceof AppError && e.code === 'RATE_LIMITED' && e.extra.retryAfterSeconds === 5,
    );
    const other = p.run('B', task('echo'), 'b');
    g.release(0);
    g.release(1);
    assert.deepEqual(await Promise.all([first, second, other]), [0, 1, 'b']);
  });

  it("answers a job's AppError with its code and issues", async () => {
    const p = pool({ size: 1 });
    await assert.rejects(p.run('A', task('refuse'), null), (e: unknown) => {
      assert.ok(e instanceof AppError);
      assert.equal(e.code, 'VALIDATION');
      assert.equal(e.message, 'the document is not valid');
      assert.deepEqual(e.extra.issues, [{ path: '/components/3/name', message: 'must be string' }]);
      return true;
    });
    assert.equal(await p.run('A', task('echo'), 'after'), 'after');
  });

  it('survives a worker that crashes: its job fails, the next one gets a new worker', async () => {
    const p = pool({ size: 1 });
    await assert.rejects(p.run('A', task('crash'), null), /the worker running the job ended \(exit code 3\)/);
    assert.deepEqual(await p.run('A', task('echo'), { still: 'here' }), { still: 'here' });
  });

  it('turns a worker that runs out of its heap into 413 for that job and carries on', async () => {
    const p = pool({ size: 1, resourceLimits: { maxOldGenerationSizeMb: 24, maxYoungGenerationSizeMb: 4 } });
    await assert.rejects(p.run('A', task('hog'), null), (e: unknown) => e instanceof AppError && e.code === 'PAYLOAD_TOO_LARGE');
    assert.equal(await p.run('B', task('echo'), 1), 1);
  });

  it('refuses a job whose transfer list holds bytes already handed over, instead of losing it and wedging its company', async () => {
    // Node 20 neither throws nor delivers a message that transfers a detached ArrayBuffer: the job
    // waited forever and, one job per company at a time, so did every later job of that company.
    const p = pool({ size: 1 });
    const body = new Uint8Array([1, 2, 3]);
    assert.deepEqual(await p.run('A', task('echo'), { body }, [body.buffer]), { body: new Uint8Array([1, 2, 3]) });
    assert.equal(body.byteLength, 0, 'the first job took the bytes');
    await assert.rejects(p.run('A', task('echo'), { body }, [body.buffer]), /detached/);
    assert.equal(await p.run('A', task('echo'), 'next'), 'next', "the company's next job runs");
    const empty = new Uint8Array(0);
    assert.deepEqual(await p.run('B', task('echo'), { empty }, [empty.buffer]), { empty: new Uint8Array(0) }, 'an empty buffer of its own still goes');
  });

  it('ends a worker that a job left with a large heap, after handing over the result', async () => {
    const p = pool({ size: 1, recycleAboveMiB: 16 });
    assert.equal(await p.run('A', task('echo'), 'small'), 'small');
    assert.equal(p.stats().workers, 1);
    assert.equal(await p.run('A', task('grow'), null), 400_000);
    assert.equal(p.stats().workers, 0, 'the grown worker is gone before the result arrives');
    assert.equal(await p.run('A', task('echo'), 'again'), 'again');
  });

  it('stops a job past its time budget with an error naming the budget, and runs the next job', async () => {
    // The budget counts from the task's start: a fresh worker's start-up and imports are not the job's.
    // The wall-clock bound is far away: however loaded the machine, the spin ends by its work.
    const p = pool({ size: 1, budgetMs: 2000, budgetWallMs: 600_000 });
    await assert.rejects(p.run('A', task('spin'), null), (e: unknown) => {
      assert.ok(e instanceof AppError);
      assert.equal(e.code, 'UNPROCESSABLE');
      assert.match(e.message, /longer than its budget of 2 s/);
      return true;
    });
    assert.equal(await p.run('A', task('echo'), 'next'), 'next');
  });

  it('counts the budget in work: a job that waits past it without working is answered, one that waits four times as long fails as a busy server', async () => {
    // Issue 33: under heavy load a legitimate 60,000-component push was refused as "too long"
    // (422) after 30 s of wall-clock time in which its thread had worked a fraction of that.
    const p = pool({ size: 1, budgetMs: 1000 });
    assert.equal(await p.run('A', task('idle'), { ms: 2500 }), 2500, 'waited 2.5 budgets, worked none of it');
    await assert.rejects(p.run('A', task('idle'), { ms: 60_000 }), (e: unknown) => {
      assert.ok(e instanceof AppError);
      assert.equal(e.code, 'UNAVAILABLE');
      assert.match(e.message, /too busy to finish reading the document within 4 s/);
      assert.equal(e.extra.retryAfterSeconds, 30);
      return true;
    });
    assert.equal(await p.run('A', task('echo'), 'next'), 'next', 'the next job runs on a new worker');
  });

  // Issue 33: with one worker (cores - 1 on a two-core machine) a company's long job held every
  // other company's job behind it.
  it("answers another company's job while one company's job runs and more of its jobs wait, at the default size", async () => {
    const p = pool({});
    const g = gates(2);
    const a = [p.run('A', task('held'), g.input(0)), p.run('A', task('held'), g.input(1))];
    await g.startedOf(0);
    assert.equal(await p.run('B', task('echo'), 'b'), 'b');
    assert.deepEqual(g.started(), [0], "A's second job still waits for its first");
    g.release(0);
    await g.startedOf(1);
    g.release(1);
    assert.deepEqual(await Promise.all(a), [0, 1]);
  });
});
