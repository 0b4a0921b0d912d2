import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { errorLogSerializer } from '../../src/http/log-serializers.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';

let d: TestDatabase;
before(async () => {
  d = await createTestDatabase();
});
after(() => d.drop());

describe('errorLogSerializer', () => {
  it('keeps the SQL and SQLSTATE of a failed query but none of its parameters', async () => {
    const secret = 'researcher text: the admin password is hunter2';
    let caught: unknown;
    try {
      await d.db.execute(sql`select ${secret}::int`);
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof Error);
    assert.ok(JSON.stringify({ m: caught.message, s: caught.stack, p: (caught as { params?: unknown }).params }).includes('hunter2'), 'the raw error does carry it');
    const logged = JSON.stringify(errorLogSerializer(caught));
    assert.ok(!logged.includes('hunter2'), logged);
    assert.match(logged, /select \$1::int/);
    assert.match(logged, /22P02/, 'the SQLSTATE (invalid input syntax) survives in the cause');
  });
  it('passes other values through', () => {
    assert.equal(errorLogSerializer('plain'), 'plain');
    const plain = errorLogSerializer(new Error('just a message')) as { message: string };
    assert.equal(plain.message, 'just a message');
  });
});
