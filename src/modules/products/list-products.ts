import { asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { products } from '../../db/schema/index.js';
import { type Product, toProduct } from './products.schemas.js';

/** The company's registered products, by name (the portal dropdown and `GET /products`). */
export async function listProducts(db: Executor, companyId: string): Promise<Product[]> {
  const rows = await db
    .select()
    .from(products)
    .where(eq(products.companyId, companyId))
    .orderBy(asc(products.name), asc(products.identifier));
  return rows.map(toProduct);
}
