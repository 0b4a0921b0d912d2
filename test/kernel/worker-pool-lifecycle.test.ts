import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { AppError } from '../../src/kernel/errors.js';
import { offloadPool } from '../../src/kernel/offload-pool.js';
import { gates, testPools, WORKER_TASKS } from '../helpers/worker-gates.js';
import { createTestApp } from '../helpers/app.js';

// Issue 24 leftovers: the pool is closed with the application (its jobs finish first, its workers
// end, later jobs are refused), and background jobs wait for their turn instead of being refused
// by the queue bound that answers callers with 429.

const task = (fn: string) => ({ module: WORKER_TASKS, fn });
const shuttingDown = (e: unknown) => e instanceof AppError && e.code === 'UNAVAILABLE' && e.message === 'the service is shutting down';
/** The process's threads (Linux): a worker is one, so this counts them without reaching into the pool. */
const threads = () => readdirSync('/proc/self/task').length;

describe('worker pool lifecycle', { timeout: 60_000 }, () => {
  const pool = testPools();

  it('closes with the application: the running job finishes, the workers end, a later job is refused', { skip: process.platform !== 'linux' }, async () => {
    const t = await createTestApp();
    const p = offloadPool();
    const before = threads();
    const g = gates(1);
    const order: string[] = [];
    const job = p.run<number>('A', task('held'), g.input(0)).then((v) => {
      order.push('job');
      return v;
    });
    await g.startedOf(0);
    assert.equal(p.stats().workers, 2, 'the busy worker and its warm spare');
    assert.ok(threads() > before, 'the workers are threads of the process');
    let closed = false;
    const closing = t.close().then(() => {
      closed = true;
      order.push('closed');
    });
    // The application released the process's pool (the next offloadPool() is another one), and its
    // close waits for the job.
    while (offloadPool() === p && !closed) await turn();
    const late = p.run('B', task('echo'), 1).then(
      () => 'ran',
      (e: unknown) => e,
    );
    g.release(0);
    await closing;
    assert.ok(shuttingDown(await late), 'a job submitted during close is refused');
    assert.equal(await job, 0, 'the job running at close finished');
    assert.deepEqual(order, ['job', 'closed']);
    assert.equal(p.stats().workers, 0);
    // On the embedded database the application's close also ends the database's own worker threads
    // (ADR 0018), so the count cannot single out the pool's thread there; the PostgreSQL run of the
    // suite checks it exactly.
    if (t.database.rowSecurity() !== 'embedded') assert.equal(threads(), before, "the worker's thread is gone");
    else assert.ok(threads() < before, 'the threads of the pool and the database are gone');
    await assert.rejects(p.run('A', task('echo'), 2), shuttingDown);
  });

  it('lets jobs accepted before close run, refuses the ones after', async () => {
    const p = pool({ size: 1 });
    const g = gates(1);
    const first = p.run('A', task('held'), g.input(0));
    await g.startedOf(0);
    const waiting = p.run('B', task('echo'), 'accepted before close');
    const closed = p.close();
    await assert.rejects(p.run('C', task('echo'), 'after'), shuttingDown);
    g.release(0);
    assert.deepEqual(await Promise.all([first, waiting]), [0, 'accepted before close']);
    await closed;
    assert.equal(p.stats().workers, 0);
  });

  it('ends a job still running when the grace is over, failing it as the service shutting down', async () => {
    const p = pool({ size: 1 });
    const stuck = assert.rejects(p.run('A', task('spin'), null), shuttingDown);
    const queued = assert.rejects(p.run('B', task('echo'), 'never started'), shuttingDown);
    await p.close(0);
    await Promise.all([stuck, queued]);
    assert.equal(p.stats().workers, 0);
  });

  it("runs a background job in the company's turn although the company's queue is full, within the background bound", async () => {
    const p = pool({ size: 1, maxQueuedPerKey: 1, maxQueuedBackground: 1 });
    const g = gates(2);
    const done: unknown[] = [];
    const first = p.run('A', task('held'), g.input(0)).then((v) => done.push(v));
    await g.startedOf(0);
    const second = p.run('A', task('held'), g.input(1)).then((v) => done.push(v));
    await assert.rejects(p.run('A', task('echo'), 'caller'), (e: unknown) => e instanceof AppError && e.code === 'RATE_LIMITED');
    const triage = p.run('A', task('echo'), 'background', [], { background: true }).then((v) => done.push(v));
    await assert.rejects(
      p.run('B', task('echo'), 'second background', [], { background: true }),
      (e: unknown) => e instanceof AppError && e.code === 'RATE_LIMITED',
    );
    g.release(0);
    g.release(1);
    await Promise.all([first, second, triage]);
    assert.deepEqual(done, [0, 1, 'background'], 'in the FIFO of its company');
  });
});
