import { and, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/client.js';
import { products } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { isUniqueViolation } from '../../kernel/db-errors.js';
import { conflict, notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { ProductCraFactsInput } from '../compliance/compliance.schemas.js';
import { writeProductCraFacts } from '../compliance/product-cra-facts.js';
import { type Product, toProduct, UpsertProductInput } from './products.schemas.js';

/** A product and its CRA facts, as the dashboard's register and edit forms send them. */
export const ProductWithFactsInput = UpsertProductInput.extend(ProductCraFactsInput.shape).strict();
const EditInput = ProductWithFactsInput.omit({ identifier: true });

const split = (i: z.infer<typeof EditInput>) => {
  const { category, placedOnMarketAt, supportEndsAt, supportJustification, ...product } = i;
  return { product, facts: { category, placedOnMarketAt, supportEndsAt, supportJustification } };
};

/**
 * Registers a new product with its CRA facts in one transaction (two audit rows). Unlike the API's
 * upsert, an identifier already in use is a CONFLICT: a person filling in "register" means a new one.
 */
export async function registerProduct(db: Db, ctx: Context, companyId: string, raw: unknown): Promise<Product> {
  const { identifier, ...rest } = parseInput(ProductWithFactsInput, raw);
  const { product, facts } = split(rest);
  try {
    return await db.transaction(async (tx) => {
      const now = new Date();
      const [row] = await tx
        .insert(products)
        .values({
          id: newId(),
          companyId,
          identifier,
          name: product.name,
          producer: product.producer ?? null,
          firmwareVersion: product.firmwareVersion ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      if (!row) throw new Error('insert returned no row');
      await recordAudit(tx, ctx, { companyId, action: 'products.create', targetType: 'product', targetId: row.id, details: { identifier }, at: now });
      await writeProductCraFacts(tx, ctx, companyId, row, facts, now);
      return toProduct(row);
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(`a product with the identifier "${identifier}" is already registered: edit it instead`);
    throw e;
  }
}

/** Changes a product's fields and CRA facts (the identifier, the upsert key, stays); one transaction. */
export async function editProduct(db: Db, ctx: Context, companyId: string, identifier: string, raw: unknown): Promise<Product> {
  const { product, facts } = split(parseInput(EditInput, raw));
  return db.transaction(async (tx) => {
    const now = new Date();
    const [row] = await tx
      .update(products)
      .set({ name: product.name, producer: product.producer ?? null, firmwareVersion: product.firmwareVersion ?? null, updatedAt: now })
      .where(and(eq(products.companyId, companyId), eq(products.identifier, identifier)))
      .returning();
    if (!row) throw notFound('product');
    await recordAudit(tx, ctx, { companyId, action: 'products.update', targetType: 'product', targetId: row.id, details: { identifier }, at: now });
    await writeProductCraFacts(tx, ctx, companyId, row, facts, now);
    return toProduct(row);
  });
}

/**
 * Archives a product (kept with its evidence and reports, left out of the portal dropdown, the
 * compliance overview and new evidence), or restores it.
 */
export async function setProductArchived(db: Db, ctx: Context, companyId: string, identifier: string, archived: boolean): Promise<Product> {
  return db.transaction(async (tx) => {
    const now = new Date();
    const [row] = await tx
      .update(products)
      .set({ archivedAt: archived ? now : null, updatedAt: now })
      .where(and(eq(products.companyId, companyId), eq(products.identifier, identifier)))
      .returning();
    if (!row) throw notFound('product');
    await recordAudit(tx, ctx, {
      companyId,
      action: archived ? 'products.archive' : 'products.restore',
      targetType: 'product',
      targetId: row.id,
      details: { identifier },
      at: now,
    });
    return toProduct(row);
  });
}
