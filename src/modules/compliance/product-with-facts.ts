import type { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Context } from '../../kernel/context.js';
import { isUniqueViolation } from '../../kernel/db-errors.js';
import { conflict } from '../../kernel/errors.js';
import { parseInput } from '../../kernel/validate.js';
import { insertProduct, updateProductFields } from '../products/manage-products.js';
import { type Product, toProduct, UpsertProductInput } from '../products/products.schemas.js';
import { ProductCraFactsInput } from './compliance.schemas.js';
import { writeProductCraFacts } from './product-cra-facts.js';

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
      const row = await insertProduct(tx, ctx, companyId, identifier, product, now);
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
    const row = await updateProductFields(tx, ctx, companyId, identifier, product, now);
    await writeProductCraFacts(tx, ctx, companyId, row, facts, now);
    return toProduct(row);
  });
}
