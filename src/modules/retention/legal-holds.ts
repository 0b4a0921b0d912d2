import { and, desc, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { legalHolds, products, reports } from '../../db/schema/index.js';
import { actorName, type Context } from '../../kernel/context.js';
import { conflict, notFound, validation } from '../../kernel/errors.js';
import { isUuid, newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { assertAdministrator } from './assert-administrator.js';
import { applyReleasedErasures } from './erase-researcher.js';
import { type LegalHold, PlaceHoldInput } from './retention.schemas.js';

const toHold = (r: typeof legalHolds.$inferSelect): LegalHold => ({
  id: r.id,
  scope: r.scope,
  targetId: r.targetId,
  reason: r.reason,
  placedBy: r.placedBy,
  placedAt: r.placedAt.toISOString(),
  releasedBy: r.releasedBy,
  releasedAt: r.releasedAt?.toISOString() ?? null,
});

/** The company's legal holds, standing ones first, then the released, newest first (administrators). */
export async function listHolds(db: Db, ctx: Context, companyId: string): Promise<LegalHold[]> {
  await assertAdministrator(db, ctx, companyId);
  const rows = await db.select().from(legalHolds).where(eq(legalHolds.companyId, companyId)).orderBy(desc(legalHolds.placedAt)).limit(500);
  return rows.map(toHold).sort((a, b) => Number(a.releasedAt !== null) - Number(b.releasedAt !== null));
}

/**
 * Places a legal hold on a report (by id), a product (by identifier) or the whole company: while
 * it stands no retention rule or erasure touches the held data (docs/retention.md "Legal holds").
 */
export async function placeHold(db: Db, ctx: Context, companyId: string, raw: unknown): Promise<LegalHold> {
  const input = parseInput(PlaceHoldInput, raw);
  return db.transaction(async (tx) => {
    await assertAdministrator(tx, ctx, companyId);
    let targetId: string | null = null;
    if (input.scope === 'company') {
      if (input.target) throw validation('a hold on the whole company names no target', [{ path: 'target', message: 'leave it out for the whole company' }]);
    } else if (!input.target) {
      throw validation(`a hold on a ${input.scope} names it`, [
        { path: 'target', message: input.scope === 'report' ? "the report's id" : "the product's identifier" },
      ]);
    } else if (input.scope === 'report') {
      const [r] = isUuid(input.target)
        ? await tx
            .select({ id: reports.id })
            .from(reports)
            .where(and(eq(reports.companyId, companyId), eq(reports.id, input.target)))
            .limit(1)
        : [];
      if (!r) throw notFound('report');
      targetId = r.id;
    } else {
      const [p] = await tx
        .select({ id: products.id })
        .from(products)
        .where(and(eq(products.companyId, companyId), eq(products.identifier, input.target)))
        .limit(1);
      if (!p) throw notFound('product');
      targetId = p.id;
    }
    const at = new Date();
    const [row] = await tx
      .insert(legalHolds)
      .values({ id: newId(), companyId, scope: input.scope, targetId, reason: input.reason, placedBy: actorName(ctx), placedAt: at })
      .returning();
    if (!row) throw new Error('insert returned no row');
    await recordAudit(tx, ctx, {
      companyId,
      action: 'retention.hold_place',
      targetType: 'legal_hold',
      targetId: row.id,
      details: { scope: input.scope, targetId },
      at,
    });
    return toHold(row);
  });
}

/** Releases a standing hold; erasure requests that waited for it are applied in the same transaction. */
export async function releaseHold(db: Db, ctx: Context, companyId: string, id: string): Promise<LegalHold> {
  return db.transaction(async (tx) => {
    await assertAdministrator(tx, ctx, companyId);
    if (!isUuid(id)) throw notFound('legal hold');
    const [found] = await tx
      .select()
      .from(legalHolds)
      .where(and(eq(legalHolds.companyId, companyId), eq(legalHolds.id, id)))
      .limit(1);
    if (!found) throw notFound('legal hold');
    if (found.releasedAt) throw conflict('this hold was already released');
    const at = new Date();
    const [row] = await tx
      .update(legalHolds)
      .set({ releasedAt: at, releasedBy: actorName(ctx) })
      .where(and(eq(legalHolds.companyId, companyId), eq(legalHolds.id, id), isNull(legalHolds.releasedAt)))
      .returning();
    if (!row) throw conflict('this hold was already released');
    const erased = await applyReleasedErasures(tx, companyId, at);
    await recordAudit(tx, ctx, {
      companyId,
      action: 'retention.hold_release',
      targetType: 'legal_hold',
      targetId: id,
      details: { scope: row.scope, erasuresApplied: erased },
      at,
    });
    return toHold(row);
  });
}
