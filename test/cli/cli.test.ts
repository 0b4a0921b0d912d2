import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { type Database, openDatabase } from '../../src/db/client.js';
import { apiKeys, companies, sessions, users } from '../../src/db/schema/index.js';
import { newId, randomHex, sha256Hex } from '../../src/kernel/ids.js';
import { acquireInstanceLock } from '../../src/operator/instance-lock.js';
import { createTestDatabase, openMigratedDataDir, type TestDatabase } from '../helpers/db.js';
import { runTs } from '../helpers/processes.js';

// The CLI against the suite's database: a PGlite DATA_DIR, or a fresh PostgreSQL database. The
// DATA_DIR starts from the migrated image: the CLI making a new database and running every
// migration is test/cli/cli-data-dir.test.ts's.
let dataDir: string;
let pgTest: TestDatabase | undefined;
const env = () => (pgTest ? { DATABASE_URL: pgTest.url } : { DATA_DIR: dataDir });
const cradle = (args: string[], stdin = '') => runTs('src/cli/main.ts', args, env(), stdin);

/** Opens the CLI's database in this process (taking the instance lock on PGlite, as the CLI does). */
async function withDb<T>(fn: (d: Database) => Promise<T>): Promise<T> {
  if (pgTest) return fn(pgTest);
  const release = await acquireInstanceLock(dataDir);
  const d = await openDatabase({ dataDir });
  try {
    return await fn(d);
  } finally {
    await d.close();
    await release();
  }
}
const companyCount = () => withDb(async (d) => Number((await d.db.select({ n: sql<number>`count(*)::int` }).from(companies))[0]?.n));
const userCount = () => withDb(async (d) => Number((await d.db.select({ n: sql<number>`count(*)::int` }).from(users))[0]?.n));

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cradle-cli-'));
  if (process.env.DATABASE_URL) pgTest = await createTestDatabase();
  else await (await openMigratedDataDir(dataDir)).close();
});
after(async () => {
  await pgTest?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A failure is exactly one line on stderr, nothing on stdout, and a non-zero exit. */
function assertOneLineError(r: { code: number | null; stdout: string; stderr: string }, fragment: RegExp) {
  assert.notEqual(r.code, 0);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${r.stderr}`);
  assert.match(lines[0] ?? '', fragment);
}

describe('cradle company', () => {
  it('creates a company and prints it as JSON with --json', async () => {
    const r = await cradle(['company', 'create', '--slug', 'acme', '--name', 'Acme Robotics', '--plan', 'enterprise', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.slug, 'acme');
    assert.equal(out.name, 'Acme Robotics');
    assert.equal(out.plan, 'enterprise');
    assert.equal(out.aiTriage, false);
    assert.match(out.id, /^[0-9a-f-]{36}$/);
  });

  it('prints one human line without --json', async () => {
    const r = await cradle(['company', 'create', '--slug', 'globex', '--name', 'Globex', '--plan', 'free']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^created company globex \(Globex\), plan free, id [0-9a-f-]{36}\n$/);
  });

  it('refuses a bad slug, a duplicate slug and an unknown plan with one line, writing nothing', async () => {
    const before = await companyCount();
    assertOneLineError(await cradle(['company', 'create', '--slug', 'Bad_Slug', '--name', 'X', '--plan', 'free']), /^cradle: .*slug/);
    assertOneLineError(await cradle(['company', 'create', '--slug', 'www', '--name', 'X', '--plan', 'free']), /^cradle: slug: slug is reserved$/);
    assertOneLineError(await cradle(['company', 'create', '--slug', 'acme', '--name', 'Other', '--plan', 'free']), /^cradle: slug "acme" is already taken$/);
    assertOneLineError(await cradle(['company', 'create', '--slug', 'newco', '--name', 'X', '--plan', 'gold']), /^cradle: plan: /);
    assert.equal(await companyCount(), before);
  });

  it('refuses missing options and unknown commands with usage help and exit 2', async () => {
    const r = await cradle(['company', 'create', '--slug', 'x']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^cradle: --name is required for "company create"\nusage:/);
    assert.equal((await cradle(['frobnicate'])).code, 2);
  });

  it('updates plan and AI triage', async () => {
    const r = await cradle(['company', 'update', '--slug', 'globex', '--plan', 'reporting', '--ai-triage', 'on', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.plan, 'reporting');
    assert.equal(out.aiTriage, true);
    assertOneLineError(await cradle(['company', 'update', '--slug', 'nobody', '--plan', 'free']), /company "nobody" not found/);
    assertOneLineError(await cradle(['company', 'update', '--slug', 'globex', '--plan', 'diamond']), /plan/);
  });
});

describe('cradle admin', () => {
  it('creates an administrator with the first line of stdin as password', async () => {
    const r = await cradle(
      ['admin', 'create', '--company', 'acme', '--email', 'psirt@acme.test', '--password-stdin', '--json'],
      'first line password\nsecond line ignored\n',
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).email, 'psirt@acme.test');
    const { verifyPassword } = await import('../../src/modules/users/password.js');
    const hash = await withDb(async (d) => (await d.db.select().from(users).where(eq(users.email, 'psirt@acme.test')))[0]?.passwordHash);
    assert.equal(await verifyPassword('first line password', hash ?? ''), true);
  });

  it('refuses an empty password, an unknown company and a taken e-mail, writing nothing', async () => {
    const before = await userCount();
    assertOneLineError(
      await cradle(['admin', 'create', '--company', 'acme', '--email', 'e@acme.test', '--password-stdin'], '\n'),
      /^cradle: password: password must not be empty$/,
    );
    assertOneLineError(await cradle(['admin', 'create', '--company', 'acme', '--email', 'e@acme.test', '--password-stdin'], ''), /password must not be empty/);
    assertOneLineError(
      await cradle(['admin', 'create', '--company', 'ghost', '--email', 'e@acme.test', '--password-stdin'], 'long enough password\n'),
      /company "ghost" not found/,
    );
    assertOneLineError(
      await cradle(['admin', 'create', '--company', 'acme', '--email', 'PSIRT@acme.test', '--password-stdin'], 'long enough password\n'),
      /already exists/,
    );
    assert.equal(await userCount(), before);
  });

  it('resets a password (ending the sessions) and changes a role, keeping the last administrator', async () => {
    const userOf = (email: string) => withDb(async (d) => (await d.db.select().from(users).where(eq(users.email, email)))[0]);
    const psirt = await userOf('psirt@acme.test');
    await withDb((d) =>
      d.db.insert(sessions).values({
        tokenDigest: sha256Hex(randomHex(32)),
        userId: psirt?.id ?? '',
        companyId: psirt?.companyId ?? '',
        csrfToken: randomHex(32),
        createdAt: new Date(),
        lastSeenAt: new Date(),
        expiresAt: new Date(Date.now() + 3_600_000),
      }),
    );
    const r = await cradle(['admin', 'reset-password', '--email', 'PSIRT@acme.test', '--password-stdin'], 'a new long password\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'set a new password for psirt@acme.test; ended 1 session(s)\n');
    const { verifyPassword } = await import('../../src/modules/users/password.js');
    assert.equal(await verifyPassword('a new long password', (await userOf('psirt@acme.test'))?.passwordHash ?? ''), true);
    assert.equal(
      await withDb(
        async (d) =>
          (
            await d.db
              .select()
              .from(sessions)
              .where(eq(sessions.userId, psirt?.id ?? ''))
          ).length,
      ),
      0,
    );
    assertOneLineError(await cradle(['admin', 'reset-password', '--email', 'psirt@acme.test', '--password-stdin'], 'short\n'), /at least 15 characters/);
    assertOneLineError(await cradle(['admin', 'reset-password', '--email', 'nobody@acme.test', '--password-stdin'], 'long enough password\n'), /not found/);

    assertOneLineError(await cradle(['admin', 'set-role', '--email', 'psirt@acme.test', '--role', 'viewer']), /at least one administrator/);
    assert.equal((await cradle(['admin', 'create', '--company', 'acme', '--email', 'second@acme.test', '--password-stdin'], 'long enough password\n')).code, 0);
    const changed = await cradle(['admin', 'set-role', '--email', 'psirt@acme.test', '--role', 'psirt']);
    assert.equal(changed.stdout, 'psirt@acme.test is now psirt (was admin); ended 0 session(s)\n', changed.stderr);
    assertOneLineError(await cradle(['admin', 'set-role', '--email', 'psirt@acme.test', '--role', 'owner']), /role/);
    assert.equal((await userOf('psirt@acme.test'))?.role, 'psirt');
  });
});

describe('cradle key', () => {
  it('suspends and unsuspends a key, idempotently, and refuses unknown ids', async () => {
    const id = newId();
    await withDb(async (d) => {
      const [c] = await d.db.select().from(companies).where(eq(companies.slug, 'acme'));
      const value = randomHex(32);
      await d.db.insert(apiKeys).values({
        id,
        companyId: c?.id ?? '',
        name: 'ci',
        keyDigest: sha256Hex(value),
        keyHint: value.slice(-4),
        scopes: [],
        allowedIps: [],
        expiresAt: new Date(Date.now() + 86_400_000),
        createdAt: new Date(),
      });
    });
    const suspendedAt = () => withDb(async (d) => (await d.db.select().from(apiKeys).where(eq(apiKeys.id, id)))[0]?.suspendedAt);
    const s = await cradle(['key', 'suspend', id]);
    assert.equal(s.code, 0, s.stderr);
    assert.equal(s.stdout, `suspended key ${id}\n`);
    assert.ok((await suspendedAt()) instanceof Date);
    assert.match((await cradle(['key', 'suspend', id])).stdout, /already suspended/);
    const u = await cradle(['key', 'unsuspend', id, '--json']);
    assert.deepEqual({ ...JSON.parse(u.stdout), companyId: undefined }, { id, suspended: false, changed: true, companyId: undefined });
    assert.equal(await suspendedAt(), null);
    assertOneLineError(await cradle(['key', 'suspend', newId()]), /API key ".*" not found/);
    assertOneLineError(await cradle(['key', 'suspend', 'not-a-uuid']), /not found/);
  });
});
