import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addOneMonthUtc, type Article14Facts, article14Status } from '../../../src/modules/article14/article14-clock.js';

const facts = (f: Partial<Article14Facts>): Article14Facts => ({
  activelyExploited: null,
  severeIncident: null,
  awareAt: null,
  fixAvailableAt: null,
  filings: {},
  ...f,
});
const at = (s: string) => new Date(s);
const dues = (f: Partial<Article14Facts>, now = at('2026-10-01T00:00:00Z')) => article14Status(facts(f), now).stages.map((s) => s.dueAt);

describe('Article 14 applicability', () => {
  it('does not apply to a zero-day without evidence of exploitation, and says so', () => {
    const s = article14Status(facts({ activelyExploited: false, severeIncident: false }), new Date());
    assert.equal(s.applies, false);
    assert.match(s.reason, /does not apply/);
    assert.deepEqual(s.stages, []);
  });
  it('asks for an assessment while nothing is known', () => {
    const s = article14Status(facts({}), new Date());
    assert.equal(s.applies, false);
    assert.match(s.reason, /not yet assessed/);
  });
});

describe('actively exploited vulnerability clocks (14(2))', () => {
  it('reproduces the table: 24 h and 72 h from awareness, final 14 days after the fix', () => {
    assert.deepEqual(dues({ activelyExploited: true, awareAt: at('2026-10-01T08:30:00Z'), fixAvailableAt: at('2026-10-10T12:00:00Z') }), [
      '2026-10-02T08:30:00.000Z',
      '2026-10-04T08:30:00.000Z',
      '2026-10-24T12:00:00.000Z',
    ]);
  });
  it('never counts the final report from awareness: unknown fix time means no final due date yet', () => {
    const s = article14Status(facts({ activelyExploited: true, awareAt: at('2026-10-01T08:30:00Z') }), at('2026-10-20T00:00:00Z'));
    const final = s.stages[2];
    assert.equal(final?.dueAt, null);
    assert.equal(final?.state, 'awaiting_anchor');
    assert.match(final?.anchor ?? '', /fixAvailableAt/);
  });
  it('starts the final-report clock at awareness when the fix came before it', () => {
    assert.equal(
      dues({ activelyExploited: true, awareAt: at('2026-10-05T00:00:00Z'), fixAvailableAt: at('2026-09-01T00:00:00Z') })[2],
      '2026-10-19T00:00:00.000Z',
    );
  });
  it('has no due times at all while awareness is unknown', () => {
    assert.deepEqual(dues({ activelyExploited: true, fixAvailableAt: at('2026-10-10T00:00:00Z') }), [null, null, null]);
  });
  it('counts exact hours across a daylight-saving change and from any offset', () => {
    // Europe/Berlin leaves summer time on 2026-10-25 at 03:00 local: 24 h later is 08:30 UTC, not 09:30.
    const [early, notify] = dues({ activelyExploited: true, awareAt: at('2026-10-24T10:30:00+02:00') });
    assert.equal(early, '2026-10-25T08:30:00.000Z');
    assert.equal(notify, '2026-10-27T08:30:00.000Z');
  });
});

describe('severe incident clocks (14(4))', () => {
  it('reproduces the table: 24 h, 72 h, final one month after the notification was filed', () => {
    const f = { severeIncident: true, awareAt: at('2026-10-01T08:00:00Z'), filings: { notification: { filedAt: at('2026-10-03T20:00:00Z') } } };
    assert.deepEqual(dues(f), ['2026-10-02T08:00:00.000Z', '2026-10-04T08:00:00.000Z', '2026-11-03T20:00:00.000Z']);
  });
  it('waits for the notification before the final report has a due date', () => {
    const s = article14Status(facts({ severeIncident: true, awareAt: at('2026-10-01T08:00:00Z') }), at('2026-10-01T09:00:00Z'));
    assert.equal(s.stages[2]?.state, 'awaiting_anchor');
    assert.match(s.stages[2]?.anchor ?? '', /incident notification first/);
  });
  it('adds a calendar month, clamped to the month end', () => {
    assert.equal(addOneMonthUtc(at('2027-01-31T10:00:00Z')).toISOString(), '2027-02-28T10:00:00.000Z');
    assert.equal(addOneMonthUtc(at('2028-01-31T10:00:00Z')).toISOString(), '2028-02-29T10:00:00.000Z');
    assert.equal(addOneMonthUtc(at('2026-12-15T23:59:59.999Z')).toISOString(), '2027-01-15T23:59:59.999Z');
  });
  it('uses the vulnerability clocks when both apply, and names the separate incident duty', () => {
    const s = article14Status(facts({ activelyExploited: true, severeIncident: true, awareAt: at('2026-10-01T00:00:00Z') }), at('2026-10-01T01:00:00Z'));
    assert.equal(s.basis, 'actively_exploited_vulnerability');
    assert.match(s.reason, /14\(4\) requires reporting separately/);
  });
});

describe('stage states', () => {
  const aware = at('2026-10-01T00:00:00Z');
  const state = (now: string, filings: Article14Facts['filings'] = {}) =>
    article14Status(facts({ activelyExploited: true, awareAt: aware, filings }), at(now)).stages[0]?.state;
  it('is open, then due soon in its last six hours, then overdue', () => {
    assert.equal(state('2026-10-01T12:00:00Z'), 'open');
    assert.equal(state('2026-10-01T18:00:00Z'), 'due_soon');
    assert.equal(state('2026-10-02T00:00:00.001Z'), 'overdue');
  });
  it('is filed, or filed late, with the filing record', () => {
    assert.equal(state('2026-10-05T00:00:00Z', { early_warning: { filedAt: at('2026-10-01T20:00:00Z') } }), 'filed');
    assert.equal(state('2026-10-05T00:00:00Z', { early_warning: { filedAt: at('2026-10-02T02:00:00Z') } }), 'filed_late');
    const s = article14Status(
      facts({
        activelyExploited: true,
        awareAt: aware,
        filings: { early_warning: { filedAt: at('2026-10-01T20:00:00Z'), filedBy: 'u1', reference: 'SRP-123' } },
      }),
      at('2026-10-05T00:00:00Z'),
    );
    assert.deepEqual(s.stages[0]?.filing, { filedAt: '2026-10-01T20:00:00.000Z', filedBy: 'u1', reference: 'SRP-123' });
  });
});
