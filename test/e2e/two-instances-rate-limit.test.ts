import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeKey, makeTenant } from '../helpers/access.js';
import { createTestDatabase, type TestDatabase } from '../helpers/db.js';
import { freePort, type ServerProcess, startServer } from '../helpers/server-process.js';

const skip =
  process.env.DATABASE_URL && process.env.REDIS_URL
    ? false
    : 'needs DATABASE_URL and REDIS_URL: two instances can share a limit only through PostgreSQL and Redis';

describe('two server instances sharing PostgreSQL and Redis', { skip }, () => {
  let database: TestDatabase;
  const servers: ServerProcess[] = [];
  let key = '';

  before(async () => {
    database = await createTestDatabase();
    const tenant = await makeTenant(database.db);
    key = (await makeKey(database.db, tenant)).key;
    const [a, b] = [await freePort(), await freePort()];
    // Both answer for the same PUBLIC_URL host; the port is not part of the zone check.
    const env = { DATABASE_URL: database.url ?? '', REDIS_URL: process.env.REDIS_URL ?? '', PUBLIC_URL: `http://127.0.0.1:${a}` };
    servers.push(await startServer(env, a), await startServer(env, b));
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await database?.drop();
  });

  it('enforce one limit of 100 per 60 s per key across both', async () => {
    const hit = (s: ServerProcess, instance: number) =>
      fetch(`${s.url}/api/v1/products`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => ({ instance, status: r.status, body: await r.text() }));
    // 150 requests spread evenly over both instances, 30 at a time.
    const results: { instance: number; status: number }[] = [];
    for (let round = 0; round < 5; round++) {
      results.push(...(await Promise.all(Array.from({ length: 30 }, (_, i) => hit(servers[i % 2]!, i % 2)))));
    }
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429).length;
    assert.equal(ok.length, 100, `accepted ${ok.length}`);
    assert.equal(limited, 50, `refused ${limited}`);
    // Both instances accepted requests, yet together only 100: one shared limit, not one each.
    assert.ok(ok.some((r) => r.instance === 0) && ok.some((r) => r.instance === 1));
    const again = await Promise.all([hit(servers[0]!, 0), hit(servers[1]!, 1)]);
    assert.deepEqual(again.map((r) => r.status), [429, 429]);
  });
});
