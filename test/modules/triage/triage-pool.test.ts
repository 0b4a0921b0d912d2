import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { triageJobs } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { offloadPool } from '../../../src/kernel/offload-pool.js';
import { fileReport } from '../../../src/modules/reports/file-report.js';
import { getSuggestion } from '../../../src/modules/triage/triage-suggestions.js';
import { runTriageCycle } from '../../../src/modules/triage/triage-worker.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';
import { makeCompany } from '../../helpers/factories.js';
import { WORKER_TASKS } from '../../helpers/worker-gates.js';

// Issue 24 leftover: the built-in triage's job runs on the offload pool in its company's turn. A
// company whose callers filled its queue (8 pushes waiting, 429 for the next) still gets its
// triage job run when its turn comes, not refused and retried with back-off.

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

describe('triage on a busy pool', { timeout: 60_000 }, () => {
  it("runs the triage job of a company whose queue is full of its callers' jobs", async () => {
    const c = await makeCompany(d.db, { aiTriage: true });
    const { submissionId } = (await fileReport(d.db, operatorContext(), c, { description: 'The hub crashes on a 1,600-byte CoAP packet.' }, 'api')).report;
    const pool = offloadPool();
    // One caller job running and eight waiting: the company's queue bound (the ninth is refused).
    const callers = 9;
    const started = new SharedArrayBuffer(4 * callers);
    const gates = new SharedArrayBuffer(4 * callers);
    const held = Array.from({ length: callers }, (_, slot) => pool.run(c.id, { module: WORKER_TASKS, fn: 'held' }, { slot, started, gates }));
    while (Atomics.load(new Int32Array(started), 0) === 0) await turn();
    await assert.rejects(pool.run(c.id, { module: WORKER_TASKS, fn: 'echo' }, 'one more push'), /already waiting/);

    let ran = false;
    const cycle = runTriageCycle(d.db, { backoffBaseMs: 60_000 }).finally(() => (ran = true));
    // The triage job waits behind the callers' jobs (or, refused, has already ended its cycle).
    while (pool.stats().queued < callers && !ran) await turn();
    const g = new Int32Array(gates);
    for (let slot = 0; slot < callers; slot++) {
      Atomics.store(g, slot, 1);
      Atomics.notify(g, slot);
    }
    assert.equal(await cycle, 1);
    await Promise.all(held);
    const [job] = await d.db.select().from(triageJobs).where(eq(triageJobs.reportId, submissionId));
    assert.equal(job?.lastError, null);
    assert.equal(job?.state, 'done');
    assert.equal(job?.attempts, 1);
    assert.equal((await getSuggestion(d.db, c.id, submissionId))?.source, 'built-in');
  });
});
