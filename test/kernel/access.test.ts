import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ACCESS_LEVELS, API_PLAN, authorize, HIGHEST_PLAN, PLANS, ROLES, SCOPES } from '../../src/kernel/access.js';

test('the plan comes first: below the lowest plan nothing else is asked', () => {
  for (const plan of PLANS) {
    for (const minPlan of [undefined, ...PLANS]) {
      const needed = minPlan ?? API_PLAN;
      const allowed = PLANS.indexOf(plan) >= PLANS.indexOf(needed);
      assert.deepEqual(
        authorize({ plan, scopes: ['read'] }, { minPlan, scope: 'gdpr:export' }),
        allowed ? { reason: 'scope', scope: 'gdpr:export' } : { reason: 'plan', minPlan: needed },
      );
    }
  }
  assert.equal(API_PLAN, HIGHEST_PLAN, 'API access needs the highest plan (docs/access.md "API keys")');
});

test('a key holds a scope when it lists it or lists none', () => {
  for (const scope of SCOPES) {
    assert.equal(authorize({ plan: API_PLAN, scopes: [] }, { scope }), undefined);
    assert.equal(authorize({ plan: API_PLAN, scopes: [scope] }, { scope }), undefined);
    const other = SCOPES.find((s) => s !== scope) as string;
    assert.deepEqual(authorize({ plan: API_PLAN, scopes: [other] }, { scope }), { reason: 'scope', scope });
  }
});

test("a member's role answers for the access level, on every plan unless the need names one", () => {
  const expected: Record<string, string[]> = {
    read: ['admin', 'psirt', 'viewer'],
    'read-admin': ['admin', 'viewer'],
    triage: ['admin', 'psirt'],
    admin: ['admin'],
    self: ['admin', 'psirt', 'viewer'],
  };
  for (const access of ACCESS_LEVELS) {
    for (const role of ROLES) {
      const may = expected[access]?.includes(role) ?? false;
      assert.deepEqual(authorize({ plan: 'free', role }, { access }), may ? undefined : { reason: 'role', access, role }, `${role} ${access}`);
      assert.deepEqual(authorize({ plan: 'free', role }, { minPlan: 'reporting', access }), { reason: 'plan', minPlan: 'reporting' });
    }
  }
});
