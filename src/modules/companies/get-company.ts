import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { companies } from '../../db/schema/index.js';
import { notFound } from '../../kernel/errors.js';
import type { Company } from './companies.schemas.js';

/** The company with this slug, or undefined. Slugs are stored lower-case; lookups fold case. */
export async function findCompanyBySlug(db: Executor, slug: string): Promise<Company | undefined> {
  const [row] = await db.select().from(companies).where(eq(companies.slug, slug.toLowerCase())).limit(1);
  return row;
}

export async function getCompanyBySlug(db: Executor, slug: string): Promise<Company> {
  const c = await findCompanyBySlug(db, slug);
  if (!c) throw notFound(`company "${slug}"`);
  return c;
}

export async function getCompanyById(db: Executor, id: string): Promise<Company> {
  const [row] = await db.select().from(companies).where(eq(companies.id, id)).limit(1);
  if (!row) throw notFound('company');
  return row;
}

export async function countCompanies(db: Executor): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(companies);
  return Number(row?.n ?? 0);
}
