import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { products } from '../../db/schema/index.js';
import type { Context } from '../../kernel/context.js';
import { newId } from '../../kernel/ids.js';
import { parseInput } from '../../kernel/validate.js';
import { recordAudit } from '../audit/record-audit.js';
import { type Product, toProduct, UpsertProductInput } from './products.schemas.js';

/**
 * docs/api.md "Writes": an idempotent upsert keyed on `identifier` within the company. `created`
 * tells the transport whether to answer 201 (new) or 200 (updated). One statement, so two
 * concurrent upserts of the same identifier cannot both insert.
 */
export async function upsertProduct(db: Db, ctx: Context, companyId: string, raw: unknown): Promise<{ product: Product; created: boolean }> {
  const input = parseInput(UpsertProductInput, raw);
  return db.transaction(async (tx) => {
    const now = new Date();
    const [row] = await tx
      .insert(products)
      .values({
        id: newId(),
        companyId,
        identifier: input.identifier,
        name: input.name,
        producer: input.producer ?? null,
        firmwareVersion: input.firmwareVersion ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoUpdate({
        target: [products.companyId, products.identifier],
        set: {
          name: input.name,
          // An omitted optional field keeps its stored value; an explicit null clears it.
          producer: input.producer === undefined ? sql`${products.producer}` : input.producer,
          firmwareVersion: input.firmwareVersion === undefined ? sql`${products.firmwareVersion}` : input.firmwareVersion,
          updatedAt: now,
        },
      })
      .returning({
        id: products.id,
        name: products.name,
        identifier: products.identifier,
        producer: products.producer,
        firmwareVersion: products.firmwareVersion,
        archivedAt: products.archivedAt,
        createdAt: products.createdAt,
        updatedAt: products.updatedAt,
        // xmax = 0 only on a freshly inserted row version: the PostgreSQL idiom for "inserted?".
        inserted: sql<boolean>`(xmax = 0)`,
      });
    if (!row) throw new Error('upsert returned no row');
    const { inserted, ...product } = row;
    await recordAudit(tx, ctx, {
      companyId,
      action: inserted ? 'products.create' : 'products.update',
      targetType: 'product',
      targetId: row.id,
      details: { identifier: row.identifier },
      at: now,
    });
    return { product: toProduct(product), created: inserted };
  });
}
