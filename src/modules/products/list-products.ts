import { asc, eq, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/client.js';
import { companyReadCache } from '../../db/company-read-cache.js';
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

// At most 50,000 products' rows (each list weighs its length, plus one) kept per process: about
// 28 MiB with their JSON text (measured), whatever the number of companies or the size of one catalogue.
const cachedList = companyReadCache('product list', 'products', listProducts, { weigh: (list) => list.length + 1, maxWeight: 50_000 });
export const productListCacheStats = cachedList.stats;

/**
 * The same list, kept in memory while the company's products are unchanged (the `products` version
 * domain, src/db/version-domains.ts: an SBOM, scan or report does not reload it; src/db/company-read-cache.ts):
 * the API's and MCP's list, which agents and pipelines poll. Not for use inside a transaction.
 * What it returns is frozen.
 */
export function listProductsCached(db: Db, companyId: string): Promise<readonly Product[]> {
  return cachedList.read(db, companyId);
}
