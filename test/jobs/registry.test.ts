import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { pino } from 'pino';
import { outboxEvents } from '../../src/db/schema/index.js';
import { periodicJob, queueJob } from '../../src/jobs/jobs.js';
import { JOBS } from '../../src/jobs/registry.js';
import { startJobs } from '../../src/jobs/start-jobs.js';
import { operatorContext } from '../../src/kernel/context.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { updateReport } from '../../src/modules/reports/update-report.js';
import { testConfig } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { makeCompany } from '../helpers/factories.js';

const ROOT = join(import.meta.dirname, '..', '..');

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

/** A pino logger whose lines this test reads. */
function capturedLog() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

describe('the job registry', () => {
  it('names each job once, by its owner, and the owner is a folder of src/', () => {
    const names = JOBS.map((j) => j.name);
    assert.equal(new Set(names).size, names.length, `duplicate names: ${names.join(', ')}`);
    for (const j of JOBS) {
      assert.ok(j.name.startsWith(`${j.owner}.`), `${j.name} is named by its owner ${j.owner}`);
      assert.ok(existsSync(join(ROOT, 'src', 'modules', j.owner)) || existsSync(join(ROOT, 'src', j.owner)), `${j.owner} is a module or folder`);
      for (const k of ['schedule', 'concurrency', 'budget'] as const) assert.ok(j[k].length > 0, `${j.name} says its ${k}`);
    }
  });

  it("points each offload-pool task at its module's exported function", async () => {
    const tasks = JOBS.flatMap((j) => (j.kind === 'pool-task' ? [j] : []));
    assert.ok(tasks.length >= 4);
    for (const t of tasks) {
      const mod = (await import(t.task.module)) as Record<string, unknown>;
      assert.equal(typeof mod[t.task.fn], 'function', `${t.name}: ${t.task.module} exports ${t.task.fn}`);
    }
  });

  it('is the list docs/architecture.md shows', () => {
    const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const rows = [...doc.matchAll(/^\|\s*`([a-z0-9.-]+)`\s*\|\s*([a-z0-9-]+)\s*\|(.+)\|$/gm)].map((m) => [
      m[1],
      m[2],
      ...(m[3] ?? '').split('|').map((c) => c.trim()),
    ]);
    const kind = { periodic: 'periodic', queue: 'queue', 'pool-task': 'offload pool' };
    assert.deepEqual(
      rows,
      JOBS.map((j) => [j.name, j.owner, kind[j.kind], j.schedule, j.concurrency, j.budget]),
      'the table of docs/architecture.md "Background jobs" lists src/jobs/registry.ts in order',
    );
  });
});

describe('startJobs', () => {
  it("runs the registry's periodic scans at start: an Article 14 deadline alert is raised without any call", async () => {
    const c = await makeCompany(d.db);
    const { report } = await fileReport(d.db, operatorContext(), c, { description: 'exploited in the wild' }, 'api');
    await updateReport(d.db, operatorContext(), c.id, report.submissionId, {
      activelyExploited: true,
      awareAt: new Date(Date.now() - 21 * 3_600_000).toISOString(),
    });
    const { log } = capturedLog();
    const jobs = await startJobs(
      { db: d.db, config: testConfig(), log, listen: d.listen },
      JOBS.filter((j) => j.kind === 'periodic'),
    );
    try {
      const alerts = async () =>
        (await d.db.select().from(outboxEvents).where(eq(outboxEvents.companyId, c.id))).filter((e) => e.type === 'article14.deadline_approaching');
      for (const until = Date.now() + 30_000; (await alerts()).length === 0; await sleep(50)) assert.ok(Date.now() < until, 'no deadline alert raised');
      assert.equal((await alerts())[0]?.payload.data.stage, 'early_warning');
    } finally {
      await jobs.stop();
    }
  });

  it('retries a failing periodic pass, logs it by name, skips a job that is off and stops in reverse order', async () => {
    const { log, lines } = capturedLog();
    const order: string[] = [];
    let passes = 0;
    const described = { owner: 'test', schedule: 's', concurrency: 'c', budget: 'b' };
    const jobs = await startJobs({ db: d.db, config: testConfig(), log, listen: d.listen }, [
      queueJob({ ...described, name: 'test.first', start: () => ({ stop: async () => void order.push('first') }) }),
      queueJob({ ...described, name: 'test.second', start: async () => ({ stop: async () => void order.push('second') }) }),
      queueJob({ ...described, name: 'test.off', start: () => undefined }),
      periodicJob({ ...described, name: 'test.never', everyMs: () => undefined, run: () => Promise.reject(new Error('an off job ran')) }),
      periodicJob({
        ...described,
        name: 'test.flaky',
        everyMs: () => 10,
        run: async () => {
          passes++;
          if (passes === 1) throw new Error('first pass fails');
        },
      }),
    ]);
    for (const until = Date.now() + 30_000; passes < 3; await sleep(10)) assert.ok(Date.now() < until, `only ${passes} passes`);
    await jobs.stop();
    const after = passes;
    await sleep(50);
    assert.equal(passes, after, 'no pass after stop');
    assert.deepEqual(order, ['second', 'first']);
    const failures = lines.filter((l) => l.msg === 'background job pass failed; retrying at the next tick');
    assert.deepEqual(
      failures.map((l) => l.job),
      ['test.flaky'],
    );
  });
});
