import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/client.js';
import { operatorContext } from '../../src/kernel/context.js';
import type { Company, Plan } from '../../src/modules/companies/companies.schemas.js';
import { createCompany } from '../../src/modules/companies/create-company.js';
import { createAdmin } from '../../src/modules/users/create-admin.js';
import type { User } from '../../src/modules/users/users.schemas.js';

export const uniqueSlug = (prefix = 'co'): string => `${prefix}-${randomBytes(4).toString('hex')}`;

/** A company with a unique slug (enterprise unless told otherwise). */
export function makeCompany(db: Db, over: Partial<{ slug: string; name: string; plan: Plan }> & Record<string, unknown> = {}): Promise<Company> {
  const slug = over.slug ?? uniqueSlug();
  return createCompany(db, operatorContext(), { name: `Company ${slug}`, plan: 'enterprise', ...over, slug });
}

export const TEST_PASSWORD = 'correct horse battery staple';

export function makeAdmin(db: Db, companySlug: string, email?: string): Promise<User> {
  return createAdmin(db, operatorContext(), companySlug, {
    email: email ?? `admin-${randomBytes(4).toString('hex')}@example.test`,
    password: TEST_PASSWORD,
  });
}
