import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { companies } from './companies.js';

/**
 * Vulnerability reports filed into a company's portal (form, bulk endpoint, later REST and MCP).
 * `id` is the public `submissionId`: a random UUID, so it is unguessable and reveals no volume.
 */
export const reports = pgTable(
  'reports',
  {
    id: uuid('id').primaryKey(),
    companyId: uuid('company_id')
      .notNull()
      .references(() => companies.id, { onDelete: 'cascade' }),
    /** Which surface filed it: portal_form, bulk, api, mcp. */
    source: text('source').notNull(),
    status: text('status').notNull(),
    description: text('description').notNull(),
    productName: text('product_name'),
    vulnerabilityType: text('vulnerability_type'),
    stepsToReproduce: text('steps_to_reproduce'),
    impact: text('impact'),
    contactEmail: text('contact_email'),
    pgpKey: text('pgp_key'),
    /** SHA-256 of the researcher's status capability token; the token itself is never stored. */
    statusTokenDigest: text('status_token_digest').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    index('reports_company_created_idx').on(t.companyId, t.createdAt),
    uniqueIndex('reports_status_token_key').on(t.statusTokenDigest),
  ],
);
