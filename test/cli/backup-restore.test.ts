import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/client.js';
import { makeKey, makeTenant } from '../helpers/access.js';
import { newRestoreTarget, type RestoreTarget } from '../helpers/backup-targets.js';
import { createTestDatabase, openMigratedDataDir, type TestDatabase } from '../helpers/db.js';
import { makeTestKeys } from '../helpers/openpgp-keys.js';
import { runTs, type ServerProcess, startServer } from '../helpers/processes.js';

const onPostgres = !!process.env.DATABASE_URL;

/**
 * Issue 35 part 5: `cradle backup` while the server runs and 50 clients file reports, `cradle backup
 * verify`, and `cradle restore` into a new data folder (embedded run) or a new PostgreSQL database
 * (PostgreSQL run), which a server then starts on and serves.
 */
describe(`backup and restore (${onPostgres ? 'PostgreSQL' : 'embedded database'})`, () => {
  let work: string;
  let sourceEnv: Record<string, string>;
  let pgSource: TestDatabase | undefined;
  let server: ServerProcess | undefined;
  // One API key per client, as 50 separate integrations would have (each key has its own rate limit).
  const keys: string[] = [];
  let backupFile = '';
  const targets: RestoreTarget[] = [];
  const servers: ServerProcess[] = [];

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'cradle-backup-'));
    backupFile = join(work, 'snapshot.cradle');
    if (onPostgres) {
      pgSource = await createTestDatabase();
      const tenant = await makeTenant(pgSource.db);
      for (let i = 0; i < 50; i++) keys.push((await makeKey(pgSource.db, tenant, { name: `client ${i}` })).key);
      sourceEnv = { DATABASE_URL: pgSource.url ?? '' };
    } else {
      const dataDir = join(work, 'data');
      const database = await openMigratedDataDir(dataDir);
      const tenant = await makeTenant(database.db);
      for (let i = 0; i < 50; i++) keys.push((await makeKey(database.db, tenant, { name: `client ${i}` })).key);
      await database.close();
      sourceEnv = { DATA_DIR: dataDir };
    }
    server = await startServer(sourceEnv);
  });

  after(async () => {
    for (const s of [server, ...servers]) if (s && s.child.exitCode === null) s.child.kill('SIGKILL');
    await pgSource?.drop();
    for (const t of targets) await t.drop();
    rmSync(work, { recursive: true, force: true });
  });

  const target = async () => {
    const t = await newRestoreTarget();
    targets.push(t);
    return t;
  };
  // The site answers for its own host name (PUBLIC_URL: localhost), not for 127.0.0.1.
  const api = (s: ServerProcess, path: string, init: RequestInit = {}, client = 0) =>
    fetch(`http://localhost:${s.port}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${keys[client]}`, 'content-type': 'application/json' } });

  it('restores every report acknowledged before a backup taken while 50 clients file, and the restored server serves them', async () => {
    const live = server!;
    const acked: { id: string; description: string }[] = [];
    let filing = true;
    const refusals: string[] = [];
    const client = async (n: number) => {
      for (let i = 0; filing && refusals.length === 0 && i < 90; i++) {
        const description = `Client ${n} finding ${i}: heap overflow in the TLV parser (${Math.random().toString(36).slice(2)})`;
        const res = await api(live, '/vulnerabilities', { method: 'POST', body: JSON.stringify({ description, productName: 'Gateway G1' }) }, n);
        if (res.status === 201) acked.push({ id: ((await res.json()) as { submissionId: string }).submissionId, description });
        else refusals.push(`${res.status}: ${await res.text()}`);
      }
    };
    const clients = Array.from({ length: 50 }, (_, n) => client(n));
    while (acked.length < 100 && refusals.length === 0) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(refusals, []);
    const before = [...acked];
    const backup = await runTs('src/cli/main.ts', ['backup', backupFile], sourceEnv);
    filing = false;
    await Promise.all(clients);
    assert.deepEqual(refusals, [], 'every filing during the backup was accepted');
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /^wrote .*snapshot\.cradle \(\d+ bytes, (pglite|postgres), \d+ migrations, not encrypted\); the operator key is not in it/);

    const verify = await runTs('src/cli/main.ts', ['backup', 'verify', backupFile], {});
    assert.equal(verify.code, 0, verify.stderr);
    assert.match(verify.stdout, /^good: (pglite|postgres) backup of .* checksum, header and a complete database checked/);

    const t = await target();
    const restore = await runTs('src/cli/main.ts', ['restore', backupFile], t.env);
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /^restored the (pglite|postgres) backup of /);

    const restored = await startServer(t.env);
    servers.push(restored);
    for (let i = 0; i < before.length; i += 10) {
      await Promise.all(
        before.slice(i, i + 10).map(async (r) => {
          const res = await api(restored, `/vulnerabilities/${r.id}`, {}, i / 10);
          assert.equal(res.status, 200, `report ${r.id} acknowledged before the backup is served by the restored server`);
          assert.equal(((await res.json()) as { description: string }).description, r.description);
        }),
      );
    }
    assert.equal(await restored.stop(), 0);
    // Nothing but acknowledged reports: every restored report is one that a client was told was filed.
    const database = await openDatabase(t.env.DATA_DIR ? { dataDir: t.env.DATA_DIR } : { databaseUrl: t.env.DATABASE_URL, poolSize: 1 });
    try {
      const rows = (await database.db.execute('select description from reports')) as unknown as { rows: { description: string }[] };
      const ackedText = new Set(acked.map((r) => r.description));
      assert.ok(rows.rows.length >= before.length);
      for (const r of rows.rows) assert.ok(ackedText.has(r.description), 'a restored report was acknowledged to its client');
    } finally {
      await database.close();
    }
  });

  it('refuses a backup with one changed byte, and a truncated one, naming the fault, and leaves the target empty', async () => {
    const bytes = readFileSync(backupFile);
    const flipped = Buffer.from(bytes);
    const at = Math.floor(bytes.length / 2);
    flipped[at] = (flipped[at] ?? 0) ^ 0x01;
    const damaged = join(work, 'damaged.cradle');
    writeFileSync(damaged, flipped);
    const cut = join(work, 'cut.cradle');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
    for (const [file, message] of [
      [damaged, /^cradle: the backup is damaged: its SHA-256 checksum does not match its contents\n$/],
      [cut, /^cradle: the backup is truncated or damaged: its closing checksum line is missing/],
    ] as const) {
      const t = await target();
      const restore = await runTs('src/cli/main.ts', ['restore', file], t.env);
      assert.equal(restore.code, 1);
      assert.match(restore.stderr, message);
      assert.equal(await t.isEmpty(), true, 'nothing was written into the target');
      const verify = await runTs('src/cli/main.ts', ['backup', 'verify', file], {});
      assert.equal(verify.code, 1);
      assert.match(verify.stderr, message);
    }
  });

  it('refuses to restore into a target that is not empty', async () => {
    const restore = await runTs('src/cli/main.ts', ['restore', backupFile], sourceEnv);
    assert.equal(restore.code, 1);
    assert.match(restore.stderr, onPostgres ? /^cradle: the target database is not empty \(it holds \d+ relations/ : /DATA_DIR\) is not empty \(it holds /);
  });

  it('encrypts to an operator key: verify and restore need the private key and refuse another one', async () => {
    const ops = await makeTestKeys('ops@cradle.example');
    const other = await makeTestKeys('someone@else.example');
    const pub = join(work, 'ops.pub.asc');
    const priv = join(work, 'ops.key.asc');
    const wrong = join(work, 'other.key.asc');
    writeFileSync(pub, ops.publicKey);
    writeFileSync(priv, ops.privateKey);
    writeFileSync(wrong, other.privateKey);
    const file = join(work, 'sealed.cradle');
    const made = await runTs('src/cli/main.ts', ['backup', file, '--encrypt-to', pub, '--json'], sourceEnv);
    assert.equal(made.code, 0, made.stderr);
    const summary = JSON.parse(made.stdout) as { encryptedTo: string };
    assert.equal(summary.encryptedTo, ops.fingerprint.replaceAll(' ', '').toLowerCase());
    // The dump is not readable in the file: a report's text does not appear in it.
    assert.equal(readFileSync(file).includes('heap overflow in the TLV parser'), false);

    const blind = await runTs('src/cli/main.ts', ['backup', 'verify', file], {});
    assert.equal(blind.code, 0, blind.stderr);
    assert.match(blind.stdout, /^checksum and header good: .*give --decrypt-with/);
    const good = await runTs('src/cli/main.ts', ['backup', 'verify', file, '--decrypt-with', priv], {});
    assert.equal(good.code, 0, good.stderr);
    assert.match(good.stdout, /^good: .* checksum, header, decryption and a complete database checked/);
    const bad = await runTs('src/cli/main.ts', ['backup', 'verify', file, '--decrypt-with', wrong], {});
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^cradle: the backup cannot be decrypted with this key/);

    const t = await target();
    const noKey = await runTs('src/cli/main.ts', ['restore', file], t.env);
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /^cradle: the backup is encrypted to [0-9a-f]{40,64}: give its private key with --decrypt-with/);
    assert.equal(await t.isEmpty(), true);
    const restore = await runTs('src/cli/main.ts', ['restore', file, '--decrypt-with', priv], t.env);
    assert.equal(restore.code, 0, restore.stderr);
    assert.equal(await t.isEmpty(), false);
  });
});
