import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { WAKE_CHANNELS } from '../../src/db/notifications.js';
import { startPollLoop } from '../../src/db/poll-loop.js';
import { operatorContext } from '../../src/kernel/context.js';
import { fileReport } from '../../src/modules/reports/file-report.js';
import { addParticipant } from '../../src/modules/cases/add-participant.js';
import { prepareNotices } from '../../src/modules/cases/case-notices.js';
import { confirmNotices } from '../../src/modules/cases/confirm-notices.js';
import { openCase } from '../../src/modules/cases/open-case.js';
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

  it('runs a pass when a transaction that queued a GitHub notice commits (issue 34)', async () => {
    const c = await makeCompany(d.db);
    const ctx = operatorContext();
    const kase = await openCase(d.db, ctx, c.id, { title: 'Overflow in a dependency' });
    await addParticipant(d.db, ctx, c.id, kase.id, { role: 'upstream_maintainer', repositoryUrl: 'https://github.com/lwip-tcpip/lwip' });
    const notices = await prepareNotices(d.db, ctx, c.id, kase.id, {});
    let passes = 0;
    const loop = startPollLoop(async () => void passes++, {
      pollMs: 600_000,
      onError: (err) => assert.fail(String(err)),
      wake: { listen: d.listen, channel: WAKE_CHANNELS.github },
    });
    try {
      await until(() => passes === 1, 'the first pass ran');
      const confirmed = await confirmNotices(d.db, ctx, c.id, kase.id, { noticeIds: notices.map((n) => n.id) }, { siteUrl: 'https://cradle.example' });
      assert.deepEqual(
        confirmed.map((n) => n.state),
        ['queued'],
      );
      await until(() => passes === 2, 'the queued notice woke the loop');
    } finally {
      await loop.stop();
    }
  });
});
