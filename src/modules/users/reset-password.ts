import { eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db, Executor } from '../../db/client.js';
import { users } from '../../db/schema/index.js';
import { endOtherSessions } from '../sessions/sessions.js';
import type { Context } from '../../kernel/context.js';
import { notFound } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { hashNewPassword } from './password.js';
import { getCompanyById } from '../companies/get-company.js';
import type { Role } from './roles.js';
import { Password } from './users.schemas.js';

const ResetInput = z.object({ email: z.string().trim().min(1, 'e-mail must not be empty').max(254), password: Password });

/** The account of an e-mail address (any company: the operator's view). */
export async function findUserByEmail(db: Executor, email: string): Promise<{ id: string; companyId: string; email: string; role: Role } | undefined> {
  const [u] = await db
    .select({ id: users.id, companyId: users.companyId, email: users.email, role: users.role })
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.trim().toLowerCase()))
    .limit(1);
  return u;
}

/**
 * Operator recovery: sets a new password (the shared policy) and ends every session of that user,
 * in one transaction, audited in their company's log (never the password). Unknown e-mail: NOT_FOUND.
 */
export async function resetPassword(db: Db, ctx: Context, raw: unknown): Promise<{ id: string; companyId: string; email: string; sessionsEnded: number }> {
  const input = parseInput(ResetInput, raw);
  const found = await findUserByEmail(db, input.email);
  if (!found) throw notFound(`user with e-mail "${input.email}"`);
  // The whole policy, with the address and the company's names; hashed before any transaction.
  const company = await getCompanyById(db, found.companyId);
  const passwordHash = await hashNewPassword(input.password, { email: found.email, companyName: company.name, companySlug: company.slug });
  return db.transaction(async (tx) => {
    const u = await findUserByEmail(tx, input.email);
    if (!u) throw notFound(`user with e-mail "${input.email}"`);
    await tx.update(users).set({ passwordHash }).where(eq(users.id, u.id));
    const ended = await endOtherSessions(tx, u.companyId, u.id, undefined);
    await recordAudit(tx, ctx, {
      companyId: u.companyId,
      action: 'users.password_reset',
      targetType: 'user',
      targetId: u.id,
      details: { email: u.email, sessionsEnded: ended },
    });
    return { id: u.id, companyId: u.companyId, email: u.email, sessionsEnded: ended };
  });
}
