import { type Operation, defineOperation } from '../operations/operation.js';
import { listProductsCached } from './list-products.js';
import { z } from 'zod';
import { Product, UpsertProductInput } from './products.schemas.js';
import { upsertProduct } from './upsert-product.js';
import { getProductByIdentifier } from './get-product.js';
import { setProductArchived } from './manage-products.js';

const archive = (archived: boolean): Operation =>
  defineOperation({
    name: archived ? 'products.archive' : 'products.restore',
    summary: archived
      ? 'Archive a product: kept with its evidence and reports, left out of the portal dropdown, the compliance overview and new SBOM/SARIF pushes (409)'
      : 'Restore an archived product',
    scope: 'products:write',
    method: 'POST',
    path: archived ? '/products/:identifier/archive' : '/products/:identifier/restore',
    mcpTool: archived ? 'archive_product' : 'restore_product',
    mcpAnnotations: { idempotentHint: true },
    output: Product,
    example: { params: { identifier: 'thermo-t2' } },
    handler: async ({ db, ctx, companyId, params }) => ({ status: 200, body: await setProductArchived(db, ctx, companyId, params.identifier, archived) }),
  });

/** `GET {base_url}/products` and `POST {base_url}/products` (docs/api.md "Writes"), plus get one, archive and restore (issue 20). */
export const productOperations: Operation[] = [
  defineOperation({
    name: 'products.list',
    summary: "The company's registered products",
    scope: 'read',
    method: 'GET',
    path: '/products',
    mcpTool: 'list_products',
    output: z.array(Product).meta({ id: 'ProductList' }),
    example: {},
    handler: async ({ db, companyId }) => ({ status: 200, body: await listProductsCached(db, companyId) }),
  }),
  defineOperation({
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
  }),
  defineOperation({
    name: 'products.get',
    summary: 'One product, by its identifier',
    scope: 'read',
    method: 'GET',
    path: '/products/:identifier',
    mcpTool: 'get_product',
    output: Product,
    example: { params: { identifier: 'thermo-t2' } },
    handler: async ({ db, companyId, params }) => ({ status: 200, body: await getProductByIdentifier(db, companyId, params.identifier) }),
  }),
  archive(true),
  archive(false),
];
