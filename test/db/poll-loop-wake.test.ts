import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { WAKE_CHANNELS } from '../../src/db/notifications.js';
import { startPollLoop } from '../../src/db/poll-loop.js';
import { operatorContext } from '../../src/kernel/context.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { makeCompany } from '../helpers/factories.js';

// Issue 23: a poll loop with a wake channel runs again when a transaction that queued its work
// commits (migration 0020), here the triage queue; it polls only every ten minutes.

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

/** Waits until `cond` holds; fails after 5 s (a poll would take ten minutes). */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (const deadline = Date.now() + 5_000; Date.now() < deadline; await sleep(10)) if (cond()) return;
  assert.fail(what);
}

describe('a poll loop woken by the database', () => {
  it('runs a pass when a transaction that queued a triage job commits', async () => {
    let passes = 0;
    const loop = startPollLoop(async () => void passes++, {
      pollMs: 600_000,
      onError: (err) => assert.fail(String(err)),
      wake: { listen: d.listen, channel: WAKE_CHANNELS.triage },
    });
    try {
      await until(() => passes === 1, 'the first pass ran');
      const triaged = await makeCompany(d.db, { aiTriage: true });
      await fileReport(d.db, operatorContext(), triaged, { description: 'Command injection in the diagnostics page' }, 'api');
      await until(() => passes === 2, 'the queued triage job woke the loop');
      await fileReport(d.db, operatorContext(), triaged, { description: 'Path traversal in the firmware upload' }, 'api');
      await until(() => passes === 3, 'the next queued job woke it again');
    } finally {
      await loop.stop();
    }
  });
});
