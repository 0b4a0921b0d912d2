import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/client.js';
import { operatorContext } from '../../src/kernel/context.js';
import type { Company, Plan } from '../../src/modules/companies/companies.schemas.js';
import { createCompany } from '../../src/modules/companies/create-company.js';
import { getCompanyBySlug } from '../../src/modules/companies/get-company.js';
import { parseInput } from '../../src/kernel/validate.js';
import { insertAdmin } from '../../src/modules/users/create-admin.js';
import { hashPassword } from '../../src/modules/users/password.js';
import { CreateAdminInput } from '../../src/modules/users/users.schemas.js';
import type { User } from '../../src/modules/users/users.schemas.js';

export const uniqueSlug = (prefix = 'co'): string => `${prefix}-${randomBytes(4).toString('hex')}`;

/** A company with a unique slug (enterprise unless told otherwise). */
export function makeCompany(db: Db, over: Partial<{ slug: string; name: string; plan: Plan }> & Record<string, unknown> = {}): Promise<Company> {
  const slug = over.slug ?? uniqueSlug();
  return createCompany(db, operatorContext(), { name: `Company ${slug}`, plan: 'enterprise', ...over, slug });
}

export const TEST_PASSWORD = 'correct horse battery staple';

// One scrypt per test process, not one per administrator: at OWASP's cost a hash takes 0.1-0.7 s of
// CPU, and the suite makes hundreds of administrators. createAdmin itself is tested in test/modules/users.
let testPasswordHash: Promise<string> | undefined;

/** An administrator whose password is TEST_PASSWORD, inserted through the verb createAdmin uses. */
export async function makeAdmin(db: Db, companySlug: string, email?: string): Promise<User> {
  const input = parseInput(CreateAdminInput, { email: email ?? `admin-${randomBytes(4).toString('hex')}@example.test`, password: TEST_PASSWORD });
  const company = await getCompanyBySlug(db, companySlug);
  const passwordHash = await (testPasswordHash ??= hashPassword(TEST_PASSWORD));
  return db.transaction((tx) => insertAdmin(tx, operatorContext(), company.id, { email: input.email, passwordHash }));
}
