import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { companies } from './companies.js';

/** Products with digital elements registered by a company; `identifier` is the upsert key. */
export const products = pgTable(
  'products',
  {
    id: uuid('id').primaryKey(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    identifier: text('identifier').notNull(),
    name: text('name').notNull(),
    producer: text('producer'),
    firmwareVersion: text('firmware_version'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [uniqueIndex('products_company_identifier_key').on(t.companyId, t.identifier), index('products_company_name_idx').on(t.companyId, t.name)],
);
