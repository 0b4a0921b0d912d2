import { gt, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.js';
import { setupTokens } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { randomHex, safeEqual, sha256Hex } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { countCompanies } from '../companies/get-company.js';
import { CreateCompanyInput, type Company } from '../companies/companies.schemas.js';
import { insertCompany } from '../companies/create-company.js';
import { insertAdmin, prepareAdmin } from '../users/create-admin.js';
import { Password, type User } from '../users/users.schemas.js';
import { recordAudit } from '../audit/record-audit.js';
import { type SessionOrigin, startSession } from '../sessions/sessions.js';
import { HIGHEST_PLAN } from '../../kernel/access.js';

const TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

/** True while the instance has no company: the site then offers first-run set-up. */
export const needsSetup = async (db: Db): Promise<boolean> => (await countCompanies(db)) === 0;

/**
 * Issues a one-time set-up token (printed by the starting server). Only its digest is stored, so
 * any instance sharing the database accepts it. Returns undefined when set-up is already done.
 */
export async function issueSetupToken(db: Db): Promise<string | undefined> {
  if (!(await needsSetup(db))) return undefined;
  const token = randomHex(16);
  const now = new Date();
  await db.delete(setupTokens).where(lt(setupTokens.expiresAt, now));
  await db.insert(setupTokens).values({
    tokenDigest: sha256Hex(token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + TOKEN_TTL_MS),
  });
  return token;
}

export const SetupInput = z.object({
  token: z.string().trim().min(1, 'the set-up token is required'),
  companyName: CreateCompanyInput.shape.name,
  slug: CreateCompanyInput.shape.slug,
  plan: CreateCompanyInput.shape.plan.default(HIGHEST_PLAN),
  email: z.email('expected an e-mail address').max(254),
  password: Password,
});
export type SetupInput = z.input<typeof SetupInput>;

const invalidToken = (): AppError => new AppError(ErrorCode.FORBIDDEN, 'the set-up token is wrong or expired; use the one the server printed at start');

/**
 * Creates the first company and its administrator, consuming every set-up token, in one
 * transaction. Refused once any company exists, so a fresh instance can be claimed only once.
 * The administrator is signed in by the same transaction (a session from `origin`, audited as a
 * sign-in through set-up): whoever just chose the password goes straight on to the dashboard.
 */
export async function completeSetup(
  db: Db,
  ctx: Context,
  raw: unknown,
  origin: SessionOrigin = {},
): Promise<{ company: Company; admin: User; session: { token: string; expiresAt: Date } }> {
  const input = parseInput(SetupInput, raw);
  const admin = await prepareAdmin({ email: input.email, password: input.password }, { name: input.companyName, slug: input.slug });
  return db.transaction(async (tx) => {
    // Serialise concurrent set-up attempts (PostgreSQL); PGlite transactions are serial anyway.
    await tx.execute(sql`lock table ${setupTokens} in exclusive mode`);
    if ((await countCompanies(tx)) > 0) {
      throw new AppError(ErrorCode.CONFLICT, 'this instance is already set up; sign in instead');
    }
    const digest = sha256Hex(input.token);
    const live = await tx.select().from(setupTokens).where(gt(setupTokens.expiresAt, new Date()));
    if (!live.some((t) => safeEqual(t.tokenDigest, digest))) throw invalidToken();
    await tx.delete(setupTokens);
    const company = await insertCompany(tx, ctx, { slug: input.slug, name: input.companyName, plan: input.plan });
    const user = await insertAdmin(tx, ctx, company.id, admin);
    const now = new Date();
    const session = await startSession(tx, user.id, company.id, now, origin);
    const userCtx = { ...ctx, actor: { type: 'user' as const, id: user.id } };
    await recordAudit(tx, userCtx, {
      companyId: company.id,
      action: 'session.sign_in',
      targetType: 'user',
      targetId: user.id,
      details: { via: 'setup' },
      at: now,
    });
    return { company, admin: user, session: { token: session.token, expiresAt: session.expiresAt } };
  });
}
