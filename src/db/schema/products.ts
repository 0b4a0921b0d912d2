import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';

/** Products with digital elements registered by a company; `identifier` is the upsert key. */
export const products = pgTable(
  'products',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    identifier: text('identifier').notNull(),
    name: text('name').notNull(),
    producer: text('producer'),
    firmwareVersion: text('firmware_version'),
    /** Archived: kept for the record, left out of the portal dropdown, compliance and new evidence. */
    archivedAt: instant('archived_at'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [uniqueIndex('products_company_identifier_key').on(t.companyId, t.identifier), index('products_company_name_idx').on(t.companyId, t.name)],
);
