import { asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { perHandle } from '../../db/prepared.js';
import { products } from '../../db/schema/index.js';
import { type Product, toProduct } from './products.schemas.js';

// `GET {base_url}/products` and the `list_products` tool run this on every call.
const listQuery = perHandle((db) =>
  db
    .select()
    .from(products)
    .where(eq(products.companyId, sql.placeholder('companyId')))
    .orderBy(asc(products.name), asc(products.identifier))
    .prepare('cradle_list_products'),
);

/** The company's registered products, by name (the portal dropdown and `GET /products`). */
export async function listProducts(db: Executor, companyId: string): Promise<Product[]> {
  const rows = await listQuery(db).execute({ companyId });
  return rows.map(toProduct);
}
