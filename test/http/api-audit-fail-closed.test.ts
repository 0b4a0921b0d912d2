import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { auditLog } from '../../src/db/schema/index.js';
import { bearer, makeKey, makeTenant } from '../helpers/access.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await createTestApp();
});
after(() => t.close());

describe('key-use audit is fail-closed', () => {
  it('answers 503 instead of 200 when the audit row cannot be written, and 200 again once it can', async () => {
    const tenant = await makeTenant(t.database.db);
    const { key } = await makeKey(t.database.db, tenant);
    // A real failure of the real database: the audit table is briefly out of reach.
    await t.database.ddl('alter table audit_log rename to audit_log_away');
    try {
      const res = await t.app.inject({ url: '/api/v1/products', headers: bearer(key) });
      assert.equal(res.statusCode, 503);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.match(res.json().detail, /audit log could not be written/);
      assert.equal(res.json().type, 'http://localhost:3000/problems/unavailable');
      assert.ok(!res.body.includes('['), 'the products answer is not sent');
    } finally {
      await t.database.ddl('alter table audit_log_away rename to audit_log');
    }
    assert.equal((await t.app.inject({ url: '/api/v1/products', headers: bearer(key) })).statusCode, 200);
  });
});

describe('key-use audit survives a normal shutdown', () => {
  it('every request answered while the server closes has its audit row', async () => {
    const s = await createTestApp();
    try {
      const tenant = await makeTenant(s.database.db);
      const { key, id } = await makeKey(s.database.db, tenant);
      await s.app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = s.app.server.address() as { port: number };
      // Requests in flight when close begins: Fastify lets them finish (later ones get 503).
      let arrived = 0;
      const allIn = new Promise<void>((resolve) => s.app.server.on('request', () => ++arrived === 40 && resolve()));
      const answers = Array.from(
        { length: 60 },
        (_, i) =>
          new Promise<{ status: number; id: string | undefined }>((resolve) => {
            const req = request({ host: '127.0.0.1', port, path: '/api/v1/products', headers: { ...bearer(key), 'x-request-id': `shutdown-${i}` } }, (res) => {
              res.resume();
              res.on('end', () => resolve({ status: res.statusCode ?? 0, id: res.headers['x-request-id'] as string | undefined }));
            });
            req.on('error', () => resolve({ status: 0, id: undefined }));
            req.end();
          }),
      );
      await allIn;
      const closed = s.app.close();
      const results = await Promise.all(answers);
      await closed;
      const ok = results.filter((r) => r.status === 200).map((r) => r.id);
      assert.ok(ok.length >= 40, `the requests in flight were answered (${ok.length})`);
      const rows = await s.database.db.select({ requestId: auditLog.requestId }).from(auditLog).where(eq(auditLog.actorId, id));
      const audited = new Set(rows.map((r) => r.requestId));
      assert.deepEqual(
        ok.filter((r) => !audited.has(r as string)),
        [],
        'answered without an audit row',
      );
    } finally {
      await s.close();
    }
  });
});
