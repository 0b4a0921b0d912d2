import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { type Database, migrationsFolder, openDatabase } from '../../src/db/client.js';
import { selectRows } from '../../src/db/sql-rows.js';
import { newId } from '../../src/kernel/ids.js';
import { GENERATED_KEY_FILE } from '../../src/kernel/secret-keys.js';
import { makeKey, makeTenant } from '../helpers/access.js';
import { createTestDatabase, openMigratedDataDir, type TestDatabase } from '../helpers/db.js';
import { freePort, runTs, type ServerProcess, startServer } from '../helpers/processes.js';
import { startReceiver } from '../helpers/receiver.js';

// An endpoint stored in plaintext before sealing existed, upgraded by a real server start: migration
// 0016 tags it, the start-up step seals it, deliveries still verify with the secret the company holds.
// On the embedded database the start makes its operator key in DATA_DIR; on PostgreSQL a start
// without a key is refused.

const onPostgres = Boolean(process.env.DATABASE_URL);
const SEALING_MIGRATION = '0016_seal_webhook_secrets';
const SECRET = 'a plaintext secret stored before sealing';

describe('sealing stored webhook secrets at start', { timeout: 180_000 }, () => {
  let dataDir = '';
  let seed: (Database | TestDatabase) & { url?: string | undefined };
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let server: ServerProcess | undefined;
  let key = '';
  const hookId = newId();

  const ddl = (statement: string) => ('ddl' in seed ? seed.ddl(statement) : seed.db.execute(sql.raw(statement)).then(() => undefined));

  before(async () => {
    receiver = await startReceiver();
    dataDir = await mkdtemp(join(tmpdir(), 'cradle-seal-'));
    seed = onPostgres ? await createTestDatabase() : await openMigratedDataDir(dataDir);
    const tenant = await makeTenant(seed.db);
    key = (await makeKey(seed.db, tenant)).key;
    // The database as it was before the sealing migration: its checks gone, a plaintext row. Then the
    // migration's own statements, as they run on such a database (later migrations stay applied).
    await ddl('alter table webhooks drop constraint webhooks_secret_sealed_check');
    await ddl('alter table webhooks drop constraint webhooks_previous_secret_sealed_check');
    const now = new Date().toISOString();
    // As the login, one connection: on PostgreSQL the policies want the system scope told first.
    await ddl(
      `${onPostgres ? "set cradle.system = 'on'; " : ''}insert into webhooks (id, company_id, url, secret, created_at, updated_at) values ('${hookId}', '${tenant.company.id}', '${receiver.url()}', '${SECRET}', '${now}', '${now}')`,
    );
    const migration = await readFile(join(migrationsFolder, `${SEALING_MIGRATION}.sql`), 'utf8');
    for (const statement of migration.split('--> statement-breakpoint')) await ddl(`${onPostgres ? "set cradle.system = 'on'; " : ''}${statement}`);
    const [tagged] = await selectRows<{ secret: string }>(seed.db, sql`select secret from webhooks where id = ${hookId}`);
    assert.equal(tagged?.secret, `plain:${SECRET}`, 'the migration tags a plaintext secret');
    if (!onPostgres) await seed.close();
  });

  after(async () => {
    await server?.stop();
    await receiver.close();
    if ('drop' in seed) await seed.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('refuses to start on PostgreSQL without an operator key, saying what to set', { skip: !onPostgres && 'PostgreSQL only (set DATABASE_URL)' }, async () => {
    const port = await freePort();
    const run = await runTs('src/main.ts', [], {
      DATABASE_URL: seed.url,
      SECRETS_KEY: undefined,
      SECRETS_KEY_FILE: undefined,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /cradle: operator key: on PostgreSQL set SECRETS_KEY or SECRETS_KEY_FILE/);
    const [row] = await selectRows<{ secret: string }>(seed.db, sql`select secret from webhooks where id = ${hookId}`);
    assert.equal(row?.secret, `plain:${SECRET}`, 'nothing was touched: the row is as the migration left it');
  });

  it('seals the plaintext row at start; deliveries verify with the secret the company holds', async () => {
    const port = await freePort();
    server = await startServer(
      {
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // On the embedded database no key is given: the first start makes one.
        ...(onPostgres ? { DATABASE_URL: seed.url ?? '' } : { DATA_DIR: dataDir, SECRETS_KEY: '' }),
      },
      { port, production: true, inheritDatabase: true },
    );
    if (!onPostgres) assert.equal((await stat(join(dataDir, GENERATED_KEY_FILE))).mode & 0o777, 0o600);
    const res = await fetch(`${server.url}/api/v1/vulnerabilities`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ description: 'A report after the upgrade', vulnerabilityType: 'other' }),
    });
    assert.equal(res.status, 201);
    for (let i = 0; receiver.seen.length === 0; i++) {
      assert.ok(i < 150, 'no delivery arrived');
      await sleep(100);
    }
    const r = receiver.seen[0]!;
    const payload = new Webhook(Buffer.from(SECRET).toString('base64')).verify(r.body, r.headers as Record<string, string>) as { type: string };
    assert.equal(payload.type, 'vulnerability.reported');
    await server.stop();
    server = undefined;
    const db = onPostgres ? seed : await openDatabase({ dataDir });
    try {
      const [row] = await selectRows<{ secret: string }>(db.db, sql`select secret from webhooks where id = ${hookId}`);
      assert.match(row?.secret ?? '', /^sb1\.[0-9a-f]{16}\./);
      assert.ok(!row?.secret.includes('plaintext'));
    } finally {
      if (!onPostgres) await db.close();
    }
  });
});
