import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { actionPath, PRODUCTS_REGISTERED } from '../../../src/modules/compliance/company-level.js';
import { evaluate, summarise } from '../../../src/modules/compliance/evaluate.js';
import type { CompanyEvidence } from '../../../src/modules/compliance/evidence.js';
import { nextTask } from '../../../src/modules/compliance/next.js';
import { bearer, makeKey, makeTenant, type Tenant } from '../../helpers/access.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';

const now = new Date('2026-11-22T12:00:00Z');
const empty = (over: Partial<CompanyEvidence> = {}): CompanyEvidence => ({
  policyPublished: false,
  securityEmail: null,
  untriagedOverdue: 0,
  untriagedTotal: 0,
  article14Overdue: 0,
  article14FiledLate: 0,
  attestations: [],
  products: [],
  ...over,
});

describe('compliance of a company with no product (pure)', () => {
  it('judges the company-level requirements once and adds the missing products as a gap', () => {
    const list = evaluate(empty(), now);
    const v = Object.fromEntries(list.map((a) => [a.requirementId, a.verdict]));
    assert.deepEqual(v, {
      [PRODUCTS_REGISTERED.id]: 'gap',
      'cra-ai-p2-2': 'met',
      'cra-ai-p2-5': 'gap',
      'cra-ai-p2-6': 'gap',
      'cra-art13-17-contact': 'gap',
      'cra-art14-reporting': 'met',
      'cra-aii-2-contact': 'gap',
    });
    assert.ok(list.every((a) => a.productId === null));
    assert.deepEqual(summarise(list), { met: 2, gap: 5, not_applicable: 0, not_assessed: 0, score: 29 }, 'no longer 100 % with nothing registered');
  });

  it('makes "register your first product" the next task, unless an Article 14 stage is overdue', () => {
    const t = nextTask(evaluate(empty(), now));
    assert.equal(t?.requirementId, PRODUCTS_REGISTERED.id);
    assert.match(t?.action ?? '', /^Register your first product/);
    assert.deepEqual(t?.productIds, []);
    assert.equal(nextTask(evaluate(empty({ article14Overdue: 1 }), now))?.requirementId, 'cra-art14-reporting');
  });

  it('links each action to the page that closes it', () => {
    assert.equal(actionPath(PRODUCTS_REGISTERED.id, null), '/products#register');
    assert.equal(actionPath('cra-ai-p2-5', null), '/settings/portal');
    assert.equal(actionPath('cra-art13-17-contact', 'cam'), '/settings/portal');
    assert.equal(actionPath('cra-art13-8-support', 'cam 1'), '/products/cam%201');
    assert.equal(actionPath('cra-ai-p2-1', 'cam'), '/evidence/sboms?product=cam');
  });
});

describe('compliance over the API tells the truth from the first minute', () => {
  let t: TestApp;
  let acme: Tenant;
  let key: string;
  before(async () => {
    t = await createTestApp();
    acme = await makeTenant(t.database.db);
    key = (await makeKey(t.database.db, acme)).key;
  });
  after(() => t.close());
  const get = async (path: string) => (await t.app.inject({ url: `/api/v1/compliance/${path}`, headers: bearer(key) })).json();
  const send = (method: 'PATCH' | 'POST', url: string, body: unknown) =>
    t.app.inject({ method, url: `/api/v1${url}`, headers: { ...bearer(key), 'content-type': 'application/json' }, payload: JSON.stringify(body) });

  it('lists company-level gaps with no product, and each closing step changes the verdicts at once', async () => {
    const gaps = await get('gaps');
    assert.deepEqual(
      gaps.gaps.map((g: { requirementId: string }) => g.requirementId),
      [PRODUCTS_REGISTERED.id, 'cra-ai-p2-5', 'cra-ai-p2-6', 'cra-art13-17-contact', 'cra-aii-2-contact'],
    );
    assert.ok(gaps.gaps.every((g: { product: unknown }) => g.product === null));
    assert.equal(gaps.gaps[1].actionPath, '/settings/portal');
    const task = (await get('next-task')).task;
    assert.equal(task.requirementId, PRODUCTS_REGISTERED.id);
    assert.equal(task.actionPath, '/products#register');
    assert.equal((await get('status')).overall.score, 29);

    assert.equal((await send('PATCH', '/portal-settings', { policyText: '# Policy', securityEmail: 'psirt@acme.example' })).statusCode, 200);
    const after = await get('gaps');
    assert.deepEqual(
      after.gaps.map((g: { requirementId: string }) => g.requirementId),
      [PRODUCTS_REGISTERED.id],
    );

    assert.equal((await send('POST', '/products', { name: 'Cam', identifier: 'cam' })).statusCode, 201);
    const withProduct = await get('gaps');
    assert.ok(!withProduct.gaps.some((g: { requirementId: string }) => g.requirementId === PRODUCTS_REGISTERED.id));
    assert.ok(withProduct.gaps.every((g: { product: { identifier: string } | null }) => g.product?.identifier === 'cam'));
    const support = withProduct.gaps.find((g: { requirementId: string }) => g.requirementId === 'cra-art13-8-support');
    assert.equal(support.actionPath, '/products/cam');
  });
});
