import { inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { companies } from '../../db/schema/index.js';
import type { Company } from './companies.schemas.js';

/** The companies with these (lower-case) slugs, in one query; unknown slugs are simply absent. */
export async function findCompaniesBySlugs(db: Executor, slugs: readonly string[]): Promise<Map<string, Company>> {
  if (slugs.length === 0) return new Map();
  const rows = await db
    .select()
    .from(companies)
    .where(inArray(companies.slug, [...slugs]));
  return new Map(rows.map((c) => [c.slug, c]));
}
