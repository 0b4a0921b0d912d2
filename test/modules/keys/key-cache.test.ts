import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq } from 'drizzle-orm';
import { type Database, openDatabase } from '../../../src/db/client.js';
import { dataVersions } from '../../../src/db/data-versions.js';
import { apiKeys, keyStateVersion } from '../../../src/db/schema/index.js';
import { operatorContext } from '../../../src/kernel/context.js';
import { createAuditWriter } from '../../../src/modules/audit/audit-writer.js';
import { updateCompany } from '../../../src/modules/companies/update-company.js';
import { createKeyCache, type KeyCache } from '../../../src/modules/keys/key-cache.js';
import { revokeKey, rotateKey } from '../../../src/modules/keys/manage-keys.js';
import { setKeySuspended } from '../../../src/modules/keys/suspend-key.js';
import { expireKey, makeKey, makeTenant, type Tenant } from '../../helpers/access.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.js';

/**
 * The in-process key cache (ADR 0011): a change to a key or its company's plan is seen by the next
 * lookup, on this handle and on a second one. On PostgreSQL the second handle is a second pool (what
 * a second instance has) and changes also come from a plain client, as from psql; on PGlite, which
 * one process holds, the second cache shares the one embedded database.
 */
let database: TestDatabase;
let second: Database;
let acme: Tenant;
let a: KeyCache;
let b: KeyCache;
const onPostgres = !!process.env.DATABASE_URL;

before(async () => {
  database = await createTestDatabase();
  second = database.url ? await openDatabase({ databaseUrl: database.url, poolSize: 4 }) : database;
  // What an instance does at start: on PostgreSQL this also drops to the role row-level security binds.
  await second.migrate();
  acme = await makeTenant(database.db);
  a = await createKeyCache(database);
  b = await createKeyCache(second);
});
after(async () => {
  await a.close();
  await b.close();
  if (second !== database) await second.close();
  await database.drop();
});

const user = () => ({ actor: { type: 'user' as const, id: acme.admin.id } });

/** SQL the way an operator at a psql prompt runs it: the login's own connection, outside Cradle. */
const byHand = (statement: string): Promise<void> => database.ddl(statement);

/** Looks the key up on both caches twice, so that each holds it; returns the hits that added. */
async function warm(value: string): Promise<number> {
  const before = a.stats.hits + b.stats.hits;
  for (const c of [a, b, a, b]) assert.ok(await c.find(value), 'the key is found');
  return a.stats.hits + b.stats.hits - before;
}

describe('key cache', () => {
  it('answers a repeated lookup from memory, with the same record the database gives', async () => {
    const k = await makeKey(database.db, acme, { scopes: ['read'], allowedIps: ['192.0.2.0/24'] });
    const misses = a.stats.misses;
    const first = await a.find(k.key);
    const again = await a.find(k.key);
    assert.equal(a.stats.misses, misses + 1, 'one database lookup');
    assert.deepEqual(again, first);
    assert.deepEqual(
      { ...first, scopes: [...(first?.scopes ?? [])], allowedIps: [...(first?.allowedIps ?? [])] },
      {
        id: k.id,
        companyId: acme.company.id,
        plan: 'enterprise',
        scopes: ['read'],
        allowedIps: ['192.0.2.0/24'],
        expiresAt: first?.expiresAt,
        suspendedAt: null,
        companyDeletionDueAt: null,
      },
    );
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first?.scopes), 'a shared record cannot be changed by one request');
  });

  it('never answers for a value that is no key, nor for a malformed one', async () => {
    assert.equal(await a.find('ab'.repeat(32)), undefined);
    assert.equal(await a.find('AB'.repeat(32)), undefined);
    assert.equal(await a.find(''), undefined);
  });

  it('sees a revocation on the next lookup, on both caches', async () => {
    const k = await makeKey(database.db, acme);
    assert.ok((await warm(k.key)) >= 2, 'served from memory before the change');
    await revokeKey(database.db, user(), acme.company.id, k.id);
    assert.equal(await a.find(k.key), undefined);
    assert.equal(await b.find(k.key), undefined);
  });

  it('sees a suspension and its lifting, made through the second handle', async () => {
    const k = await makeKey(database.db, acme);
    await warm(k.key);
    await setKeySuspended(second.db, operatorContext(), k.id, true);
    assert.ok((await a.find(k.key))?.suspendedAt instanceof Date);
    assert.ok((await b.find(k.key))?.suspendedAt instanceof Date);
    await setKeySuspended(second.db, operatorContext(), k.id, false);
    assert.equal((await a.find(k.key))?.suspendedAt, null);
  });

  it('sees a rotation: the old value is unknown, the new one found', async () => {
    const k = await makeKey(database.db, acme);
    await warm(k.key);
    const r = await rotateKey(database.db, user(), acme.company.id, k.id);
    assert.equal(await a.find(k.key), undefined);
    assert.equal(await b.find(k.key), undefined);
    assert.equal((await b.find(r.key))?.id, k.id);
  });

  it('sees scope, allowlist and expiry changes made by hand, outside Cradle', async () => {
    const k = await makeKey(database.db, acme, { scopes: ['read'] });
    await warm(k.key);
    await byHand(`update api_keys set scopes = array['products:write'] where id = '${k.id}'`);
    assert.deepEqual([...((await a.find(k.key))?.scopes ?? [])], ['products:write']);
    assert.deepEqual([...((await b.find(k.key))?.scopes ?? [])], ['products:write']);
    await warm(k.key);
    await byHand(`update api_keys set allowed_ips = array['198.51.100.7'] where id = '${k.id}'`);
    assert.deepEqual([...((await a.find(k.key))?.allowedIps ?? [])], ['198.51.100.7']);
    await warm(k.key);
    await expireKey(second.db, k.id);
    assert.ok(((await a.find(k.key))?.expiresAt.getTime() ?? Infinity) <= Date.now());
    assert.ok(((await b.find(k.key))?.expiresAt.getTime() ?? Infinity) <= Date.now());
  });

  it("sees a change of the company's plan, and the company's deletion", async () => {
    const other = await makeTenant(database.db);
    const k = await makeKey(database.db, other);
    await warm(k.key);
    await updateCompany(second.db, operatorContext(), other.company.slug, { plan: 'reporting' });
    assert.equal((await a.find(k.key))?.plan, 'reporting');
    assert.equal((await b.find(k.key))?.plan, 'reporting');
    await warm(k.key);
    await byHand(`delete from companies where id = '${other.company.id}'`);
    assert.equal(await a.find(k.key), undefined);
    assert.equal(await b.find(k.key), undefined);
  });

  it("keeps its entries when only a key's last use is recorded (the audit writer's update)", async () => {
    const k = await makeKey(database.db, acme);
    await warm(k.key);
    const [before] = await database.db.select().from(keyStateVersion);
    const writer = createAuditWriter(database.db);
    const at = new Date();
    await writer.write(
      { companyId: acme.company.id, at, actorType: 'api_key', actorId: k.id, action: 'api.request', outcome: 'success', details: { status: 200 } },
      { keyId: k.id, at, ip: '192.0.2.1' },
    );
    const [stored] = await database.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, k.id));
    assert.equal(stored?.at?.getTime(), at.getTime(), 'the last use was written');
    const [afterWrite] = await database.db.select().from(keyStateVersion);
    assert.equal(afterWrite?.version, before?.version, 'no change to what authentication reads');
    const misses = a.stats.misses;
    await a.find(k.key);
    assert.equal(a.stats.misses, misses, 'still served from memory');
  });

  it(
    onPostgres
      ? 'reads the version once for lookups that arrive together (PostgreSQL)'
      : 'reads no version per lookup: the embedded database notifies (PGlite)',
    async () => {
      const k = await makeKey(database.db, acme);
      await a.find(k.key);
      const reads = dataVersions(database.db).stats.reads;
      await Promise.all(Array.from({ length: 20 }, () => a.find(k.key)));
      assert.equal(dataVersions(database.db).stats.reads - reads, onPostgres ? 1 : 0);
    },
  );
});
