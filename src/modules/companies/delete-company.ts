import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { companies } from '../../db/schema/index.js';
import { asSystem } from '../../db/tenant-scope.js';
import type { Context } from '../../kernel/context.js';
import { conflict, notFound, validation } from '../../kernel/errors.js';
import { recordAudit } from '../audit/record-audit.js';
import { purgeCompany, type PurgeResult } from './purge-company.js';

export type DeletionState = { slug: string; requestedAt: string; dueAt: string; purged: PurgeResult | null };

/**
 * `cradle company delete --slug`: the company is suspended at once (portal, API and dashboard
 * refuse) and purged when the grace period ends (`graceDays`; `now` purges at once). Asking again
 * while a deletion is pending keeps the first due date, unless `now` is given.
 */
export async function requestCompanyDeletion(db: Db, ctx: Context, slug: string, o: { graceDays: number; now?: boolean; at?: Date }): Promise<DeletionState> {
  if (!Number.isInteger(o.graceDays) || o.graceDays < 0) throw validation('the grace period must be a whole number of days');
  const at = o.at ?? new Date();
  const row = await asSystem(() =>
    db.transaction(async (tx) => {
      const [found] = await tx.select().from(companies).where(eq(companies.slug, slug.toLowerCase())).for('update').limit(1);
      if (!found) throw notFound(`company "${slug}"`);
      const requestedAt = found.deletionRequestedAt ?? at;
      const dueAt = o.now ? at : (found.deletionDueAt ?? new Date(at.getTime() + o.graceDays * 86_400_000));
      const [updated] = await tx
        .update(companies)
        .set({ deletionRequestedAt: requestedAt, deletionDueAt: dueAt, updatedAt: at })
        .where(eq(companies.id, found.id))
        .returning();
      await recordAudit(tx, ctx, {
        companyId: found.id,
        action: 'companies.deletion_requested',
        targetType: 'company',
        targetId: found.id,
        details: { dueAt: dueAt.toISOString(), immediate: o.now === true },
        at,
      });
      return updated ?? found;
    }),
  );
  const state = { slug: row.slug, requestedAt: row.deletionRequestedAt!.toISOString(), dueAt: row.deletionDueAt!.toISOString() };
  if (!o.now) return { ...state, purged: null };
  const purged = await purgeCompany(db, row.id, at);
  if (!purged) throw conflict(`company "${slug}" was restored before its purge ran`);
  return { ...state, purged };
}

/** `cradle company delete --slug --undo`: cancels a pending deletion; the company is served again at once. */
export async function cancelCompanyDeletion(db: Db, ctx: Context, slug: string, at = new Date()): Promise<{ slug: string; cancelled: boolean }> {
  return asSystem(() =>
    db.transaction(async (tx) => {
      const [found] = await tx.select().from(companies).where(eq(companies.slug, slug.toLowerCase())).for('update').limit(1);
      if (!found) throw notFound(`company "${slug}"`);
      if (!found.deletionDueAt) return { slug: found.slug, cancelled: false };
      await tx.update(companies).set({ deletionRequestedAt: null, deletionDueAt: null, updatedAt: at }).where(eq(companies.id, found.id));
      await recordAudit(tx, ctx, { companyId: found.id, action: 'companies.deletion_cancelled', targetType: 'company', targetId: found.id, at });
      return { slug: found.slug, cancelled: true };
    }),
  );
}
