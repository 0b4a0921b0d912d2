import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrationsFolder } from '../../db/client.js';

type Journal = { entries: { idx: number; when: number; tag: string }[] };

/** The checked-in migrations, in order. */
export const journal = (): Journal['entries'] => (JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as Journal).entries;

/** Which tag a count of applied migrations reaches ('' for none; the count when this Cradle does not know it). */
export function tagAt(applied: number): string {
  if (applied === 0) return '';
  return journal()[applied - 1]?.tag ?? `migration ${applied} (newer than this Cradle)`;
}

/** The SQL that counts a database's applied migrations (drizzle's own table). */
export const APPLIED_SQL = 'select count(*)::int as n from drizzle.__drizzle_migrations';
