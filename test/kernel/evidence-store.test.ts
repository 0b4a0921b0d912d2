import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHUNK_ROWS, chunksOf, READ_PAGE_ROWS, readPaged } from '../../src/kernel/evidence-store.js';

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

  it('hands out chunks of the size asked for', async () => {
    const sizes: number[] = [];
    for await (const { chunk } of chunksOf(
      Array.from({ length: 2500 }, () => 0),
      1000,
    ))
      sizes.push(chunk.length);
    assert.deepEqual(sizes, [1000, 1000, 500]);
  });
});

describe('paged reads', () => {
  it('reads ordinal ranges of READ_PAGE_ROWS until a short page, keeping the order', async () => {
    const total = 2 * READ_PAGE_ROWS + 3;
    const asked: [number, number][] = [];
    const rows = await readPaged(async (from, to) => {
      asked.push([from, to]);
      return Array.from({ length: Math.max(0, Math.min(to, total) - from) }, (_, i) => from + i);
    });
    assert.deepEqual(asked, [
      [0, READ_PAGE_ROWS],
      [READ_PAGE_ROWS, 2 * READ_PAGE_ROWS],
      [2 * READ_PAGE_ROWS, 3 * READ_PAGE_ROWS],
    ]);
    assert.deepEqual(
      rows,
      Array.from({ length: total }, (_, i) => i),
    );
  });

  it('asks once more after an exactly full last page, and returns nothing more', async () => {
    let calls = 0;
    const rows = await readPaged(async (from) => (calls++, from === 0 ? Array.from({ length: READ_PAGE_ROWS }, () => 1) : []));
    assert.equal(calls, 2);
    assert.equal(rows.length, READ_PAGE_ROWS);
  });
});
