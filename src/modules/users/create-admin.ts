import type { Db, Executor } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { isUniqueViolation } from '../../kernel/db-errors.js';
import { conflict } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getCompanyBySlug } from '../companies/get-company.js';
import { hashNewPassword } from './password.js';
import { CreateAdminInput, type User } from './users.schemas.js';

export type PreparedAdmin = { email: string; passwordHash: string };

/**
 * Validates and hashes outside any transaction: scrypt takes tens of milliseconds and must not
 * hold a database connection (PGlite has only one) while it runs.
 */
export async function prepareAdmin(raw: unknown, company: { name: string; slug: string }): Promise<PreparedAdmin> {
  const input = parseInput(CreateAdminInput, raw);
  return {
    email: input.email,
    passwordHash: await hashNewPassword(input.password, { email: input.email, companyName: company.name, companySlug: company.slug }),
  };
}

/** Inserts a prepared administrator with the caller's executor. Taken e-mail: CONFLICT. */
export async function insertAdmin(tx: Executor, ctx: Context, companyId: string, admin: PreparedAdmin): Promise<User> {
  const now = new Date();
  try {
    const [row] = await tx
      .insert(users)
      .values({ id: newId(), companyId, email: admin.email, passwordHash: admin.passwordHash, role: 'admin', createdAt: now })
      .returning({ id: users.id, companyId: users.companyId, email: users.email, role: users.role, createdAt: users.createdAt });
    if (!row) throw new Error('insert returned no row');
    await recordAudit(tx, ctx, {
      companyId,
      action: 'users.create',
      targetType: 'user',
      targetId: row.id,
      details: { email: row.email, role: row.role },
      at: now,
    });
    return row;
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(`a user with e-mail "${admin.email}" already exists`);
    throw e;
  }
}

/** Creates a company administrator. Unknown company: NOT_FOUND; taken e-mail: CONFLICT. */
export async function createAdmin(db: Db, ctx: Context, companySlug: string, raw: unknown): Promise<User> {
  const company = await getCompanyBySlug(db, companySlug);
  const admin = await prepareAdmin(raw, company);
  return db.transaction(async (tx) => insertAdmin(tx, ctx, company.id, admin));
}
