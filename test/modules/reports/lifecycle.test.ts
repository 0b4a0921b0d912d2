import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLOSED_STATES, PUBLIC_STATUS, REPORT_STATES, TRANSITIONS, canTransition, transitionRefusal } from '../../../src/modules/reports/lifecycle.js';

describe('report lifecycle', () => {
  it('walks the happy path from new to disclosed', () => {
    const path = ['new', 'triaging', 'accepted', 'fixing', 'fixed', 'disclosed'] as const;
    for (let i = 0; i + 1 < path.length; i++)
      assert.equal(transitionRefusal(path[i] as never, path[i + 1] as never, null), undefined, `${path[i]} -> ${path[i + 1]}`);
  });

  it('lets every open state be closed, and every closed state be reopened to triaging only', () => {
    for (const open of ['new', 'triaging', 'accepted'] as const) for (const c of CLOSED_STATES) assert.ok(canTransition(open, c), `${open} -> ${c}`);
    for (const c of CLOSED_STATES) assert.deepEqual(TRANSITIONS[c], ['triaging']);
  });

  it('refuses skipping back from fixed to new, anything after disclosed, and staying put', () => {
    assert.match(transitionRefusal('fixed', 'new', null) ?? '', /cannot move a report from fixed to new; from fixed it can go to: disclosed, fixing/);
    assert.match(transitionRefusal('disclosed', 'fixing', null) ?? '', /final/);
    assert.match(transitionRefusal('new', 'new', null) ?? '', /already new/);
    assert.equal(canTransition('new', 'fixed'), false, 'a fix needs an accepted report first');
    assert.equal(canTransition('fixing', 'spam'), false, 'work in progress is not closed as spam');
  });

  it('requires the original when closing as duplicate', () => {
    assert.match(transitionRefusal('new', 'duplicate', null) ?? '', /duplicateOf/);
    assert.equal(transitionRefusal('new', 'duplicate', '0b6f3c1e-0000-4000-8000-000000000000'), undefined);
  });

  it('has a transition list and a public wording for every state, naming only known states', () => {
    for (const s of REPORT_STATES) {
      assert.ok(Array.isArray(TRANSITIONS[s]));
      assert.ok(PUBLIC_STATUS[s].length > 0);
      for (const t of TRANSITIONS[s]) assert.ok((REPORT_STATES as readonly string[]).includes(t));
    }
  });
});
