import type { Db, Executor } from '../../db/client.js';
import { companies } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { isUniqueViolation } from '../../kernel/db-errors.js';
import { conflict } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { type Company, CreateCompanyInput } from './companies.schemas.js';

/** Inserts a company with the caller's executor (no transaction of its own). */
export async function insertCompany(tx: Executor, ctx: Context, raw: unknown): Promise<Company> {
  const input = parseInput(CreateCompanyInput, raw);
  const now = new Date();
  try {
    const [row] = await tx
      .insert(companies)
      .values({
        id: newId(),
        slug: input.slug,
        name: input.name,
        plan: input.plan,
        aiTriage: input.aiTriage ?? false,
        securityEmail: input.securityEmail ?? null,
        policyText: input.policyText ?? null,
        policyUrl: input.policyUrl ?? null,
        ...(input.languages ? { languages: input.languages } : {}),
        preferredReportFormat: input.preferredReportFormat ?? null,
        pgpPublicKey: input.pgpPublicKey ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    if (!row) throw new Error('insert returned no row');
    await recordAudit(tx, ctx, {
      companyId: row.id,
      action: 'companies.create',
      targetType: 'company',
      targetId: row.id,
      details: { slug: row.slug, plan: row.plan },
      at: now,
    });
    return row;
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(`slug "${input.slug}" is already taken`);
    throw e;
  }
}

/** Creates a company. Duplicate slug: CONFLICT; invalid slug, name or plan: VALIDATION. */
export async function createCompany(db: Db, ctx: Context, raw: unknown): Promise<Company> {
  return db.transaction((tx) => insertCompany(tx, ctx, raw));
}
