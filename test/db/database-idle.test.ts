import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

// The idle memory reclaim waits while a statement is in flight (src/kernel/memory-reclaim.ts
// `quiet`, ADR 0026): `Database.idle()` says so on PGlite (pending calls to its worker) and on
// PostgreSQL (a pooled connection checked out).

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

describe('Database.idle', () => {
  it('is false while a statement is in flight and true once it answered', async () => {
    assert.equal(d.idle(), true, 'nothing sent yet');
    // drizzle sends a statement when it is awaited (`then`); the driver then takes a few turns to
    // hand it over (node-postgres checks a connection out first). Seen from outside until it answers:
    let answered = false;
    const running = d.db.execute(sql`select pg_sleep(1)`).then(() => (answered = true));
    let seenBusy = false;
    while (!answered && !seenBusy) {
      seenBusy = !d.idle();
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(seenBusy, true, 'a statement in flight');
    await running;
    assert.equal(d.idle(), true, 'answered');
  });

  it('is false while a transaction is open, between its statements', async () => {
    let inside: boolean | undefined;
    await d.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      inside = d.idle();
    });
    assert.equal(inside, false);
    assert.equal(d.idle(), true);
  });
});
