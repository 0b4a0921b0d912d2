import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedMap } from '../../src/kernel/bounded-map.js';

describe('BoundedMap', () => {
  it('keeps at most `limit` entries, forgetting the one written longest ago', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    m.set('a', 3); // written again: now the newest
    m.set('c', 4);
    assert.equal(m.get('b'), undefined);
    assert.equal(m.get('a'), 3);
    assert.equal(m.get('c'), 4);
    assert.equal(m.size, 2);
  });

  it('bounds the total weight when given a weight, and does not keep an entry heavier than the limit', () => {
    const m = new BoundedMap<string, number[]>(10, (list) => list.length);
    m.set('a', [1, 2, 3, 4]);
    m.set('b', [1, 2, 3, 4]);
    assert.equal(m.weight, 8);
    m.set('c', [1, 2, 3]); // 11 > 10: the oldest goes
    assert.equal(m.get('a'), undefined);
    assert.deepEqual([m.get('b')?.length, m.get('c')?.length], [4, 3]);
    assert.equal(m.weight, 7);
    m.set('b', [1]); // replacing an entry counts its new weight only
    assert.equal(m.weight, 4);
    m.set(
      'huge',
      Array.from({ length: 11 }, (_, i) => i),
    );
    assert.equal(m.get('huge'), undefined, 'heavier than the whole limit: not kept');
    assert.equal(m.weight, 4, 'and nothing else was evicted for it');
    m.delete('c');
    assert.equal(m.weight, 1);
    m.clear();
    assert.deepEqual([m.size, m.weight], [0, 0]);
  });
});
