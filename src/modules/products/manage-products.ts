import { and, eq } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { products } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { notFound } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { recordAudit } from '../audit/record-audit.js';
import { type Product, type ProductRow, toProduct } from './products.schemas.js';

/** A product's own fields as a person edits them (the identifier, the upsert key, apart). */
export type ProductFields = { name: string; producer?: string | null | undefined; firmwareVersion?: string | null | undefined };

/**
 * Inserts a new product with its audit row in the caller's transaction (a unique violation on the
 * identifier propagates: the caller words the conflict).
 */
export async function insertProduct(tx: Executor, ctx: Context, companyId: string, identifier: string, product: ProductFields, now: Date): Promise<ProductRow> {
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
  return row;
}

/** Changes a product's own fields with its audit row in the caller's transaction; NOT_FOUND when the company has no such product. */
export async function updateProductFields(
  tx: Executor,
  ctx: Context,
  companyId: string,
  identifier: string,
  product: ProductFields,
  now: Date,
): Promise<ProductRow> {
  const [row] = await tx
    .update(products)
    .set({ name: product.name, producer: product.producer ?? null, firmwareVersion: product.firmwareVersion ?? null, updatedAt: now })
    .where(and(eq(products.companyId, companyId), eq(products.identifier, identifier)))
    .returning();
  if (!row) throw notFound('product');
  await recordAudit(tx, ctx, { companyId, action: 'products.update', targetType: 'product', targetId: row.id, details: { identifier }, at: now });
  return row;
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
