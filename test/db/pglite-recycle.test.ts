// The embedded database's worker replaced when idle (ADR 0026): the same data directory opened in
// a new worker gives back the WebAssembly heap large statements grew, keeps every row, every
// channel listened to and every session setting, and holds the calls made meanwhile.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client.js';
import { dataVersions } from '../../src/db/data-versions.js';
import type { RemotePglite } from '../../src/db/pglite-remote.js';
import { type Recyclable, startDatabaseRecycle } from '../../src/db/pglite-recycle.js';
import { selectRows } from '../../src/db/sql-rows.js';
import { operatorContext } from '../../src/kernel/context.js';
import { upsertProduct } from '../../src/modules/products/upsert-product.js';
import { makeTenant } from '../helpers/access.js';
import { openMigratedDataDir } from '../helpers/db.js';

const skip = process.env.DATABASE_URL ? 'the embedded database only' : false;
const MiB = 2 ** 20;
const remoteOf = (d: Database) => (d.db as unknown as { $client: RemotePglite }).$client;

describe('recycling the embedded database', { skip }, () => {
  let dataDir = '';
  let database: Database;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cradle-pglite-recycle-'));
    database = await openMigratedDataDir(dataDir);
  });
  after(async () => {
    await database?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('gives the grown heap back and keeps rows, notifications and version counts', async () => {
    const remote = remoteOf(database);
    const { company } = await makeTenant(database.db);
    const floor = (await remote.stats()).wasmBytes;
    // A 200 MB value built inside PostgreSQL grows its heap, which never shrinks.
    const [grown] = await selectRows<{ n: number }>(database.db, sql`select length(string_agg(repeat('x', 1000), '')) as n from generate_series(1, 200000)`);
    assert.equal(grown?.n, 200_000_000);
    const big = (await remote.stats()).wasmBytes;
    assert.ok(big - floor > 150 * MiB, `the heap grew from ${floor / MiB} to ${big / MiB} MiB`);

    const heldMs = await remote.recycle();
    assert.ok(heldMs > 0);
    const back = (await remote.stats()).wasmBytes;
    assert.ok(back < big - 150 * MiB, `the heap is back to ${back / MiB} MiB from ${big / MiB} MiB`);

    assert.deepEqual(await selectRows(database.db, sql`select slug from companies where id = ${company.id}`), [{ slug: company.slug }]);
    // The session setting and the channels of the version counts came along (ADR 0017).
    const versions = () => dataVersions(database.db).after(company.id);
    const before = (await versions()).company(company.id, 'products');
    await upsertProduct(database.db, operatorContext(), company.id, { name: 'After', identifier: 'after' });
    assert.equal((await versions()).company(company.id, 'products'), before + 1);
    const heard: string[] = [];
    const stop = await database.listen('cradle_recycle_probe', (p) => heard.push(p));
    await remote.recycle();
    await database.db.execute(sql`select pg_notify('cradle_recycle_probe', 'after the reopen')`);
    assert.deepEqual(heard, ['after the reopen']);
    await stop();
  });

  it('holds the calls made during the reopen and answers each of them after it', async () => {
    const remote = remoteOf(database);
    const recycling = remote.recycle();
    assert.equal(remote.idle, false);
    const answers = await Promise.all([
      selectRows<{ n: number }>(database.db, sql`select 41 + 1 as n`),
      database.db.transaction(async (tx) => selectRows<{ n: number }>(tx, sql`select count(*)::int as n from companies`)),
    ]);
    assert.deepEqual(answers[0], [{ n: 42 }]);
    assert.ok((answers[1][0]?.n ?? 0) >= 1);
    assert.ok((await recycling) > 0);
    assert.equal(remote.idle, true);
  });

  it('refuses to recycle while a transaction is open, and the transaction goes on', async () => {
    const remote = remoteOf(database);
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      assert.equal(remote.idle, false);
      await assert.rejects(remote.recycle(), /busy: it is recycled only when idle/);
      assert.deepEqual(await selectRows(tx, sql`select 2 as n`), [{ n: 2 }]);
    });
    assert.equal(remote.idle, true);
  });
});

describe('when the embedded database is recycled', () => {
  const fake = (o: { wasm: number[]; busy?: number; idle?: () => boolean }) => {
    const recycled: number[] = [];
    let i = 0;
    const db: Recyclable = {
      get idle() {
        return o.idle?.() ?? true;
      },
      stats: async () => ({ wasmBytes: o.wasm[Math.min(i++, o.wasm.length - 1)] as number, busy: o.busy ?? 0 }),
      recycle: async () => (recycled.push(i), 5),
    };
    return { db, recycled, looks: () => i };
  };
  /** Until `n` looks were taken (however slow the machine), then stops the policy. */
  const lookedAt = async (looks: () => number, n: number, policy: { stop(): void }) => {
    while (looks() < n) await new Promise((r) => setTimeout(r, 5));
    policy.stop();
  };

  it('recycles an idle database whose heap grew past the threshold above its first look, once', async () => {
    const { db, recycled, looks } = fake({ wasm: [100 * MiB, 150 * MiB, 300 * MiB, 100 * MiB, 110 * MiB, 110 * MiB] });
    const said: number[] = [];
    const policy = startDatabaseRecycle(db, { everyMs: 5, growthBytes: 96 * MiB, onRecycle: (r) => said.push(r.wasmBytesBefore / MiB) });
    await lookedAt(looks, 6, policy);
    assert.deepEqual(recycled, [3], 'only at the look that saw 300 MiB against the 100 MiB floor');
    assert.deepEqual(said, [300]);
  });

  it('leaves a busy database alone, however large its heap', async () => {
    const busy = fake({ wasm: [100 * MiB, 900 * MiB], busy: 0.5 });
    await lookedAt(busy.looks, 4, startDatabaseRecycle(busy.db, { everyMs: 5 }));
    assert.deepEqual(busy.recycled, []);
    // One with a call pending is not even asked (asking would be a call of its own).
    let asked = 0;
    const pending = fake({ wasm: [100 * MiB, 900 * MiB], idle: () => (asked++, false) });
    await lookedAt(() => asked, 4, startDatabaseRecycle(pending.db, { everyMs: 5 }));
    assert.deepEqual(pending.recycled, []);
    assert.equal(pending.looks(), 0);
  });
});
