import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { article14Status } from '../../../src/modules/article14/article14-clock.js';
import { APPROACHING_MS, deadlineAlerts } from '../../../src/modules/article14/deadline-alerts.js';

const H = 3_600_000;
const aware = new Date('2026-11-20T08:00:00Z');
const status = (now: Date, filings = {}) =>
  article14Status({ activelyExploited: true, severeIncident: null, awareAt: aware, fixAvailableAt: null, filings }, now);
const at = (hoursAfterAware: number) => new Date(aware.getTime() + hoursAfterAware * H);

describe('deadline alerts (pure)', () => {
  it('is silent while every stage is further away than four hours', () => {
    assert.equal(APPROACHING_MS, 4 * H);
    assert.deepEqual(deadlineAlerts(status(at(19.99)), at(19.99)), []);
  });

  it('announces the early warning as approaching from four hours before, and as overdue after', () => {
    assert.deepEqual(deadlineAlerts(status(at(20)), at(20)), [{ stage: 'early_warning', kind: 'approaching', dueAt: '2026-11-21T08:00:00.000Z' }]);
    assert.deepEqual(deadlineAlerts(status(at(24.01)), at(24.01)), [{ stage: 'early_warning', kind: 'overdue', dueAt: '2026-11-21T08:00:00.000Z' }]);
  });

  it('says nothing of a filed stage and moves on to the next', () => {
    const filed = { early_warning: { filedAt: at(23) } };
    assert.deepEqual(deadlineAlerts(status(at(68), filed), at(68)), [{ stage: 'notification', kind: 'approaching', dueAt: '2026-11-23T08:00:00.000Z' }]);
  });

  it('says nothing of a stage without a due time (final report before a fix exists)', () => {
    const s = status(at(1000));
    assert.equal(s.stages.find((x) => x.stage === 'final_report')?.dueAt, null);
    assert.deepEqual(
      deadlineAlerts(s, at(1000)).map((a) => a.stage),
      ['early_warning', 'notification'],
    );
  });
});
