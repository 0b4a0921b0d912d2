import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { companies, users } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { assertMemberMay } from '../users/roles.js';

/**
 * Retention, erasure and legal holds are the administrators' (docs/access.md "Retention"), checked
 * here in the verb whatever surface called it: a signed-in person needs the admin role, an API key
 * the operation's scope (checked by its transport before the verb runs), the operator and Cradle's
 * own workers may. The public never may.
 */
export async function assertAdministrator(db: Executor, ctx: Context, companyId: string): Promise<void> {
  const { actor } = ctx;
  if (actor.type === 'operator' || actor.type === 'system' || actor.type === 'api_key') return;
  if (actor.type === 'user') {
    const [row] = await db
      .select({ role: users.role, plan: companies.plan })
      .from(users)
      .innerJoin(companies, eq(companies.id, users.companyId))
      .where(and(eq(users.id, actor.id), eq(users.companyId, companyId)))
      .limit(1);
    if (!row) throw new AppError(ErrorCode.FORBIDDEN, 'this account is not a member of the company');
    assertMemberMay(row, { access: 'admin' });
    return;
  }
  throw new AppError(ErrorCode.FORBIDDEN, 'retention settings are for administrators');
}
