import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { products } from '../../db/schema/index.js';
import { notFound } from '../../kernel/errors.js';
import { type Product, toProduct } from './products.schemas.js';

/** The company's product with this identifier; another company's identifier is NOT_FOUND too. */
export async function getProductByIdentifier(db: Executor, companyId: string, identifier: string): Promise<Product> {
  const [row] = await db
    .select()
    .from(products)
    .where(and(eq(products.companyId, companyId), eq(products.identifier, identifier)))
    .limit(1);
  if (!row) throw notFound('product');
  return toProduct(row);
}
