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
  const [row] = await db
    .select()
    .from(productCraFacts)
    .where(and(eq(productCraFacts.companyId, companyId), eq(productCraFacts.productId, product.id)));
  return toView(product.identifier, row);
}

const keep = <T>(v: T | undefined, column: Parameters<typeof sql>[1]) => (v === undefined ? sql`${column}` : v);

/**
 * Writes a product's CRA facts with the caller's executor (no transaction of its own), with its
 * audit row: for a verb that changes the product and its facts in one transaction.
 */
export async function writeProductCraFacts(
  tx: Executor,
  ctx: Context,
  companyId: string,
  product: { id: string; identifier: string },
  input: ProductCraFactsInput,
  now = new Date(),
): Promise<ProductCraFacts> {
  const date = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : new Date(v));
  const placed = date(input.placedOnMarketAt);
  const ends = date(input.supportEndsAt);
  const [row] = await tx
    .insert(productCraFacts)
    .values({
      productId: product.id,
      companyId,
      category: input.category ?? 'default',
      placedOnMarketAt: placed ?? null,
      supportEndsAt: ends ?? null,
      supportJustification: input.supportJustification ?? null,
      updatedAt: now,
    })
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
  await recordAudit(tx, ctx, {
    companyId,
    action: 'compliance.product_facts',
    targetType: 'product',
    targetId: product.id,
    details: { identifier: product.identifier, ...input },
    at: now,
  });
  return toView(product.identifier, row);
}

/**
 * Declares a product's CRA facts (category, placed on the market, support end and why it is
 * shorter than five years). Omitted fields keep their value; null clears one. One statement.
 */
export async function setProductCraFacts(db: Db, ctx: Context, companyId: string, identifier: string, raw: unknown): Promise<ProductCraFacts> {
  const input = parseInput(ProductCraFactsInput, raw);
  return db.transaction(async (tx) => writeProductCraFacts(tx, ctx, companyId, await getProductByIdentifier(tx, companyId, identifier), input));
}

/** Every declared product's CRA facts of the company, by product id (one query: the products page). */
export async function listProductCraFacts(db: Executor, companyId: string): Promise<Map<string, Omit<ProductCraFacts, 'productIdentifier'>>> {
  const rows = await db.select().from(productCraFacts).where(eq(productCraFacts.companyId, companyId));
  return new Map(
    rows.map((r) => {
      const { productIdentifier: _p, ...v } = toView('', r);
      return [r.productId, v];
    }),
  );
}
