import type { Operation } from '../../http/operations.js';
import { listProductsCached } from './list-products.js';
import { z } from 'zod';
import { Product, UpsertProductInput } from './products.schemas.js';
import { upsertProduct } from './upsert-product.js';

/** Spec "Endpoints": `GET {base_url}/products` and `POST {base_url}/products`. */
export const productOperations: Operation[] = [
  {
    name: 'products.list',
    summary: "The company's registered products",
    scope: 'read',
    method: 'GET',
    path: '/products',
    mcpTool: 'list_products',
    output: z.array(Product).meta({ id: 'ProductList' }),
    example: {},
    handler: async ({ db, companyId }) => ({ status: 200, body: await listProductsCached(db, companyId) }),
  },
  {
    name: 'products.upsert',
    statuses: [201, 200],
    summary: 'Register a product, or update the one with the same identifier',
    scope: 'products:write',
    method: 'POST',
    path: '/products',
    mcpTool: 'upsert_product',
    input: UpsertProductInput,
    output: Product,
    example: { body: { name: 'Thermostat T2', identifier: 'thermo-t2', producer: 'Acme', firmwareVersion: '2.4.1' } },
    handler: async ({ db, ctx, companyId }, body) => {
      const { product, created } = await upsertProduct(db, ctx, companyId, body);
      return { status: created ? 201 : 200, body: product };
    },
  },
];
