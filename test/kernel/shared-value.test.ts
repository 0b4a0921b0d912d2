import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sharedJson, shareValue } from '../../src/kernel/shared-value.js';

describe('shared values', () => {
  it('are frozen all the way down', () => {
    const v = shareValue([{ name: 'Hub', tags: ['a'], meta: { n: 1 } }]);
    assert.throws(() => (v as unknown as unknown[]).push(1), TypeError);
    assert.throws(() => {
      (v[0] as { name: string }).name = 'x';
    }, TypeError);
    assert.throws(() => (v[0]?.tags as string[]).push('b'), TypeError);
    assert.throws(() => {
      (v[0]?.meta as { n: number }).n = 2;
    }, TypeError);
  });

  it('may hold typed arrays, which JavaScript cannot freeze: the rest is frozen around them', () => {
    const v = shareValue({ times: Float64Array.from([2, 1]), list: [1] });
    assert.ok(Object.isFrozen(v) && Object.isFrozen(v.list));
    assert.deepEqual([...v.times], [2, 1]);
  });

  it('give their JSON text, the same text JSON.stringify gives, and only shared values do', () => {
    const plain = [{ name: 'Hub', at: '2026-11-22T00:00:00.000Z', note: null }];
    const shared = shareValue(structuredClone(plain));
    assert.equal(sharedJson(shared), JSON.stringify(plain));
    assert.equal(sharedJson(shared), JSON.stringify(plain), 'again, from the kept text');
    assert.equal(sharedJson(plain), undefined);
    assert.equal(sharedJson('text'), undefined);
    assert.equal(sharedJson(null), undefined);
  });
});
