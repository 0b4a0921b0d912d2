import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/db/client.js';
import { makeKey, makeTenant, type Tenant } from './access.js';
import { createTestDatabase, openMigratedDataDir } from './db.js';
import type { ServerProcess } from './processes.js';

/**
 * The shared set-up of the crash tests: a data directory, a database (the embedded one in that
 * directory, or a fresh PostgreSQL database when DATABASE_URL is set) with one company and an API
 * key. `seed` runs before the embedded database is handed over to the server process (one process
 * may hold it); `env` is what the server needs to open the same database.
 */
export async function crashFixture(seed: (db: Database['db'], tenant: Tenant) => Promise<void> = async () => undefined) {
  const dataDir = await mkdtemp(join(tmpdir(), 'cradle-crash-'));
  const db: Database & { url?: string | undefined; drop?: () => Promise<void> } = process.env.DATABASE_URL
    ? await createTestDatabase()
    : await openMigratedDataDir(dataDir);
  const tenant = await makeTenant(db.db);
  const key = (await makeKey(db.db, tenant)).key;
  await seed(db.db, tenant);
  if (!process.env.DATABASE_URL) await db.close();
  return {
    tenant,
    key,
    env: { DATA_DIR: dataDir, ...(db.url ? { DATABASE_URL: db.url } : {}) } as Record<string, string>,
    async cleanup() {
      if (process.env.DATABASE_URL) await db.drop?.();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Files a report over the REST API: its submission id when answered 201, else undefined. */
export const fileOverApi = (server: ServerProcess, key: string, description: string): Promise<string | undefined> =>
  fetch(`${server.url}/api/v1/vulnerabilities`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ description, vulnerabilityType: 'other' }),
  }).then(
    async (r) => (r.status === 201 ? ((await r.json()) as { submissionId: string }).submissionId : undefined),
    () => undefined,
  );

/** SIGKILL (no shutdown hook runs), resolved once the process is gone. */
export async function killHard(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await new Promise((r) => (server.child.exitCode !== null || server.child.signalCode !== null ? r(null) : server.child.once('exit', r)));
}
