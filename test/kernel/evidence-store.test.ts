import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHUNK_ROWS, chunksOf } from '../../src/kernel/evidence-store.js';

// Issue 33, part 4: a bulk write gives the event loop a turn between its statements, so other
// requests' I/O is served while a large push is stored (on the embedded database a statement runs
// on the event loop itself).

describe('bulk-write chunks', () => {
  it('hands out every row once, in order, in chunks of CHUNK_ROWS', async () => {
    const rows = Array.from({ length: 2 * CHUNK_ROWS + 7 }, (_, i) => i);
    const seen: { start: number; length: number }[] = [];
    const all: number[] = [];
    for await (const { start, chunk } of chunksOf(rows)) {
      seen.push({ start, length: chunk.length });
      all.push(...chunk);
    }
    assert.deepEqual(seen, [
      { start: 0, length: CHUNK_ROWS },
      { start: CHUNK_ROWS, length: CHUNK_ROWS },
      { start: 2 * CHUNK_ROWS, length: 7 },
    ]);
    assert.deepEqual(all, rows);
  });

  it('lets a waiting event-loop callback run between two chunks, not before the first', async () => {
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    for await (const { start } of chunksOf(Array.from({ length: 2 * CHUNK_ROWS }, () => 0))) order.push(`chunk at ${start}`);
    assert.deepEqual(order, ['chunk at 0', 'other work', `chunk at ${CHUNK_ROWS}`]);
  });
});
