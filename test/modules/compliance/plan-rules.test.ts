import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../src/kernel/errors.js';
import { assertPlan, PLAN_RULES, planAllows } from '../../../src/modules/compliance/read-compliance.js';

describe('compliance plan rules (docs/compliance.md "Endpoints": next-task and next-deadline from the Reporting plan upward)', () => {
  it('names exactly the two gated reads', () => {
    assert.deepEqual(PLAN_RULES, { 'next-task': 'reporting', 'next-deadline': 'reporting' });
  });

  it('refuses free with a problem naming the plan, allows reporting and enterprise', () => {
    for (const feature of ['next-task', 'next-deadline'] as const) {
      assert.throws(
        () => assertPlan('free', feature),
        (e: unknown) =>
          e instanceof AppError &&
          e.code === 'UNAUTHENTICATED' &&
          e.message === `${feature} is available from the reporting plan upward; this company is on the free plan`,
      );
      assert.doesNotThrow(() => assertPlan('reporting', feature));
      assert.doesNotThrow(() => assertPlan('enterprise', feature));
      assert.equal(planAllows('free', feature), false);
    }
  });
});
