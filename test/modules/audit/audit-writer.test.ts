import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eq, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from '../../../src/db/client.js';
import { apiKeys, auditLog } from '../../../src/db/schema/index.js';
import { type AuditRow, createAuditWriter } from '../../../src/modules/audit/audit-writer.js';
import { makeKey, makeTenant, type Tenant } from '../../helpers/access.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

let database: TestDatabase;
let acme: Tenant;
before(async () => {
  database = await createTestDatabase();
  acme = await makeTenant(database.db);
});
after(() => database.drop());

const row = (companyId: string, requestId: string): AuditRow => ({
  companyId,
  at: new Date(),
  actorType: 'api_key',
  actorId: 'k',
  action: 'api.request',
  outcome: 'success',
  requestId,
  details: { method: 'GET', path: '/api/v1/products', status: 200 },
});

/** Counts the statements the writer sends (each one its own transaction), on the real database. */
function counting(db: Db): { db: Db; commits: () => number } {
  let n = 0;
  const proxy = new Proxy(db, {
    get(target, prop, recv) {
      if (prop === 'transaction' || prop === 'execute')
        return (...args: unknown[]) => (n++, (target[prop] as (...a: unknown[]) => unknown).apply(target, args));
      return Reflect.get(target, prop, recv);
    },
  });
  return { db: proxy, commits: () => n };
}

describe('group-commit audit writer', () => {
  it('commits 200 concurrent rows in a few batches, each caller resolving only after its row is stored', async () => {
    const c = counting(database.db);
    const writer = createAuditWriter(c.db);
    const tag = randomUUID();
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        await writer.write(row(acme.company.id, `${tag}-${i}`));
        const [stored] = await database.db
          .select({ id: auditLog.id })
          .from(auditLog)
          .where(eq(auditLog.requestId, `${tag}-${i}`));
        assert.ok(stored, `row ${i} is committed when its write resolves`);
      }),
    );
    assert.ok(c.commits() >= 1 && c.commits() <= 10, `${c.commits()} commits for 200 rows`);
  });

  it('refuses only the bad row of a batch; its neighbours are committed', async () => {
    const writer = createAuditWriter(database.db);
    const tag = randomUUID();
    const results = await Promise.allSettled([
      writer.write(row(acme.company.id, `${tag}-a`)),
      writer.write(row(randomUUID(), `${tag}-bad`)), // no such company: foreign key violation
      writer.write(row(acme.company.id, `${tag}-b`)),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    const stored = await database.db.select({ r: auditLog.requestId }).from(auditLog);
    const ids = stored.map((s) => s.r);
    assert.ok(ids.includes(`${tag}-a`) && ids.includes(`${tag}-b`) && !ids.includes(`${tag}-bad`));
  });

  it("records a key's latest use in the same commit", async () => {
    const k = await makeKey(database.db, acme);
    const writer = createAuditWriter(database.db);
    const early = new Date(Date.now() - 5000);
    const late = new Date();
    await Promise.all([
      writer.write(row(acme.company.id, randomUUID()), { keyId: k.id, at: late, ip: '192.0.2.2' }),
      writer.write(row(acme.company.id, randomUUID()), { keyId: k.id, at: early, ip: '192.0.2.1' }),
    ]);
    const [stored] = await database.db.select().from(apiKeys).where(eq(apiKeys.id, k.id));
    assert.equal(stored?.lastUsedAt?.getTime(), late.getTime());
    assert.equal(stored?.lastUsedIp, '192.0.2.2');
  });

  it("keeps a key's last use to the minute across batches: a use within the minute changes nothing, a later one is written", async () => {
    const k = await makeKey(database.db, acme);
    const writer = createAuditWriter(database.db);
    const t0 = Date.now() - 10 * 60_000;
    const lastUse = async () => (await database.db.select().from(apiKeys).where(eq(apiKeys.id, k.id)))[0];
    for (const [offset, ip, expectedOffset, expectedIp] of [
      [0, '192.0.2.1', 0, '192.0.2.1'],
      [30_000, '192.0.2.2', 0, '192.0.2.1'],
      [59_000, '192.0.2.3', 0, '192.0.2.1'],
      [61_000, '192.0.2.4', 61_000, '192.0.2.4'],
      [90_000, '192.0.2.5', 61_000, '192.0.2.4'],
    ] as const) {
      await writer.write(row(acme.company.id, randomUUID()), { keyId: k.id, at: new Date(t0 + offset), ip });
      const stored = await lastUse();
      assert.equal(stored?.lastUsedAt?.getTime(), t0 + expectedOffset, `after the use at +${offset} ms`);
      assert.equal(stored?.lastUsedIp, expectedIp);
    }
    // Another writer (another instance) set it meanwhile: this one's next use within that minute is no change.
    await database.db
      .update(apiKeys)
      .set({ lastUsedAt: new Date(t0 + 200_000), lastUsedIp: '198.51.100.1' })
      .where(eq(apiKeys.id, k.id));
    await writer.write(row(acme.company.id, randomUUID()), { keyId: k.id, at: new Date(t0 + 230_000), ip: '192.0.2.6' });
    assert.equal((await lastUse())?.lastUsedIp, '198.51.100.1');
    await writer.write(row(acme.company.id, randomUUID()), { keyId: k.id, at: new Date(t0 + 261_000), ip: '192.0.2.7' });
    assert.equal((await lastUse())?.lastUsedIp, '192.0.2.7');
  });

  it("sends the plain INSERT once a key's stored last use is within the minute, also when another writer stored it", async () => {
    const k = await makeKey(database.db, acme);
    const dialect = new PgDialect();
    const sent: string[] = [];
    const spy = new Proxy(database.db, {
      get(target, prop, recv) {
        if (prop === 'execute') return (q: SQL) => (sent.push(dialect.sqlToQuery(q).sql), target.execute(q));
        return Reflect.get(target, prop, recv);
      },
    });
    const writer = createAuditWriter(spy);
    const t0 = Date.now() - 10 * 60_000;
    // Another instance wrote the last use; this writer's first use within that minute changes nothing.
    await database.db
      .update(apiKeys)
      .set({ lastUsedAt: new Date(t0), lastUsedIp: '198.51.100.1' })
      .where(eq(apiKeys.id, k.id));
    for (const offset of [10_000, 20_000, 50_000]) {
      await writer.write(row(acme.company.id, randomUUID()), { keyId: k.id, at: new Date(t0 + offset), ip: '192.0.2.1' });
    }
    const updating = sent.map((s) => s.includes('update api_keys'));
    assert.deepEqual(updating, [true, false, false], 'only the first statement looks at the key; it learns the stored minute');
    await writer.write(row(acme.company.id, randomUUID()), { keyId: k.id, at: new Date(t0 + 61_000), ip: '192.0.2.2' });
    assert.equal(sent.at(-1)?.includes('update api_keys'), true, 'a use past the minute is written');
    const [stored] = await database.db.select().from(apiKeys).where(eq(apiKeys.id, k.id));
    assert.equal(stored?.lastUsedAt?.getTime(), t0 + 61_000);
    assert.equal(stored?.lastUsedIp, '192.0.2.2');
  });

  it('stores every field exactly as given, whatever characters the client sent', async () => {
    const writer = createAuditWriter(database.db);
    const requestId = randomUUID();
    const at = new Date('2026-03-04T05:06:07.089Z');
    const odd = "quote \" backslash \\ dollar $$ tab \t newline \n emoji \u{1F510} and a 'single'";
    const given: AuditRow = {
      companyId: acme.company.id,
      at,
      actorType: 'api_key',
      actorId: 'key-id',
      action: 'mcp.tool',
      targetType: null,
      targetId: null,
      outcome: 'denied',
      ip: '2001:db8::1',
      userAgent: odd,
      requestId,
      details: { tool: 'list_products', nested: { list: [1, 'two', null, true], text: odd }, status: 403 },
    };
    await writer.write(given);
    const [stored] = await database.db.select().from(auditLog).where(eq(auditLog.requestId, requestId));
    assert.ok(stored);
    const { id: _id, ...fields } = stored;
    assert.deepEqual(fields, given);
  });
});
