import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Db } from './client.js';

// src/db/migration-journal.ts and dist/db/migration-journal.js sit at the same depth, so this resolves from both.
export const migrationsFolder = fileURLToPath(new URL('../../src/db/migrations', import.meta.url));

// Arbitrary constant: the PostgreSQL advisory lock key that serialises migrations between instances.
export const MIGRATION_LOCK_KEY = 7_260_911;

export async function journalLength(): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const journal = JSON.parse(await readFile(`${migrationsFolder}/meta/_journal.json`, 'utf8')) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

export async function appliedCount(db: Db): Promise<number> {
  const rows = await db.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
  return Number((rows as unknown as { rows: { n: number }[] }).rows[0]?.n ?? 0);
}
