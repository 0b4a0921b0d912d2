import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { notFound, validation } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { type Company, UpdateCompanyInput } from './companies.schemas.js';

/** Changes a company's plan, AI-triage flag, name or portal settings. Unknown slug: NOT_FOUND. */
export async function updateCompany(db: Db, ctx: Context, slug: string, raw: unknown): Promise<Company> {
  const input = parseInput(UpdateCompanyInput, raw);
  const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  if (Object.keys(changes).length === 0) throw validation('nothing to update: give at least one setting');
  const updated = await db.transaction(async (tx) => {
    const now = new Date();
    const [row] = await tx
      .update(companies)
      .set({ ...changes, updatedAt: now })
      .where(eq(companies.slug, slug.toLowerCase()))
      .returning();
    if (!row) throw notFound(`company "${slug}"`);
    await recordAudit(tx, ctx, {
      companyId: row.id,
      action: 'companies.update',
      targetType: 'company',
      targetId: row.id,
      // Only which settings changed, and the plan/flag values: policy texts and keys stay out of the log.
      details: { changed: Object.keys(changes), plan: row.plan, aiTriage: row.aiTriage },
      at: now,
    });
    return row;
  });
  return updated;
}
