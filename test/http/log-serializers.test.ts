import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { errorLogSerializer, requestLogSerializer } from '../../src/http/log-serializers.js';
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
    assert.ok(
      JSON.stringify({ m: caught.message, s: caught.stack, p: (caught as { params?: unknown }).params }).includes('hunter2'),
      'the raw error does carry it',
    );
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

describe('requestLogSerializer', () => {
  it('drops the query string and the tokens of capability links (status link, unsubscribe link, invitation, case participant link)', () => {
    const token = 'ab'.repeat(32);
    const line = (url: string) => requestLogSerializer({ method: 'GET', url, host: 'acme.localhost', ip: '192.0.2.1' } as unknown as FastifyRequest);
    // A researcher's capability pages are logged without the client address (docs/retention.md "Erasure").
    assert.deepEqual(line(`/status/${token}?x=1`), { method: 'GET', url: '/status/[redacted]', host: 'acme.localhost' });
    assert.equal(line('/reports?x=1').remoteAddress, '192.0.2.1');
    assert.equal(line(`/mail/stop/2f1c6a4e-0000-4000-8000-000000000000/${'c'.repeat(32)}`).url, '/mail/stop/2f1c6a4e-0000-4000-8000-000000000000/[redacted]');
    assert.equal(
      line(`/mail/confirm/2f1c6a4e-0000-4000-8000-000000000000/${'c'.repeat(32)}`).url,
      '/mail/confirm/2f1c6a4e-0000-4000-8000-000000000000/[redacted]',
    );
    assert.equal(line(`/invite/${token}`).url, '/invite/[redacted]');
    // A case participant's private link (docs/coordination.md), its answers too; logged without the address.
    assert.deepEqual(line(`/coordination/${token}/embargo`), { method: 'GET', url: '/coordination/[redacted]/embargo', host: 'acme.localhost' });
    assert.equal(line('/api/v1/products?api_key=secret').url, '/api/v1/products');
    assert.equal(line('/submit').url, '/submit');
  });

  it('drops those tokens from percent-encoded paths too (issue 32, finding 7)', () => {
    const token = 'ab'.repeat(32);
    const encoded = token.replace(/a/g, '%61');
    const url = (u: string) => requestLogSerializer({ method: 'GET', url: u, host: 'acme.localhost', ip: '192.0.2.1' } as unknown as FastifyRequest).url;
    for (const [given, logged] of [
      [`/%73tatus/${token}`, '/status/[redacted]'],
      [`/%73%74%61%74%75%73/${token}`, '/status/[redacted]'],
      [`/status/${encoded}`, '/status/[redacted]'],
      [`/%73tatus/${token}%ZZ`, '/status/[redacted]'],
      [`/%69nvite/${encoded}`, '/invite/[redacted]'],
      [`/%63oordination/${encoded}`, '/coordination/[redacted]'],
      [`/mail/%73top/r1/${token}`, '/mail/stop/r1/[redacted]'],
      [`/%6Dail/stop/r1/${encoded}?x=1`, '/mail/stop/r1/[redacted]'],
    ] as const) {
      assert.equal(url(given), logged, given);
    }
    assert.equal(url('/reports/%41bc'), '/reports/%41bc', 'other paths are logged as sent');
  });
});
