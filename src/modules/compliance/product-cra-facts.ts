import { and, eq, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { productCraFacts } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { getProductByIdentifier } from '../products/get-product.js';
import { type ProductCraFacts, ProductCraFactsInput } from './compliance.schemas.js';

type FactsRow = typeof productCraFacts.$inferSelect;
const toView = (identifier: string, r: FactsRow | undefined): ProductCraFacts => ({
  productIdentifier: identifier,
  category: r?.category ?? 'default',
  placedOnMarketAt: r?.placedOnMarketAt?.toISOString() ?? null,
  supportEndsAt: r?.supportEndsAt?.toISOString() ?? null,
  supportJustification: r?.supportJustification ?? null,
  updatedAt: r?.updatedAt.toISOString() ?? null,
});

/** A product's CRA facts (defaults when none are declared); another company's product is NOT_FOUND. */
export async function getProductCraFacts(db: Executor, companyId: string, identifier: string): Promise<ProductCraFacts> {
  const product = await getProductByIdentifier(db, companyId, identifier);
  const [row] = await db.select().from(productCraFacts).where(and(eq(productCraFacts.companyId, companyId), eq(productCraFacts.productId, product.id)));
  return toView(product.identifier, row);
}

const keep = <T>(v: T | undefined, column: Parameters<typeof sql>[1]) => (v === undefined ? sql`${column}` : v);

/**
 * Declares a product's CRA facts (category, placed on the market, support end and why it is
 * shorter than five years). Omitted fields keep their value; null clears one. One statement.
 */
export async function setProductCraFacts(db: Db, ctx: Context, companyId: string, identifier: string, raw: unknown): Promise<ProductCraFacts> {
  const input = parseInput(ProductCraFactsInput, raw);
  const date = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : new Date(v));
  const placed = date(input.placedOnMarketAt);
  const ends = date(input.supportEndsAt);
  return db.transaction(async (tx) => {
    const product = await getProductByIdentifier(tx, companyId, identifier);
    const now = new Date();
    const [row] = await tx
      .insert(productCraFacts)
      .values({ productId: product.id, companyId, category: input.category ?? 'default', placedOnMarketAt: placed ?? null, supportEndsAt: ends ?? null, supportJustification: input.supportJustification ?? null, updatedAt: now })
      .onConflictDoUpdate({
        target: productCraFacts.productId,
        set: {
          category: keep(input.category, productCraFacts.category),
          placedOnMarketAt: keep(placed, productCraFacts.placedOnMarketAt),
          supportEndsAt: keep(ends, productCraFacts.supportEndsAt),
          supportJustification: keep(input.supportJustification, productCraFacts.supportJustification),
          updatedAt: now,
        },
      })
      .returning();
    await recordAudit(tx, ctx, { companyId, action: 'compliance.product_facts', targetType: 'product', targetId: product.id, details: { identifier, ...input }, at: now });
    return toView(product.identifier, row);
  });
}
