import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { products } from './products.js';

/**
 * A person's statement about a CRA requirement the service cannot see for itself (issue 8): met or
 * not applicable, always with a justification (Art. 13(4) wants one for "not applicable"), for one
 * product or, with `product_id` null, for every product of the company. Withdrawn, not deleted, so
 * the record of what was claimed and when stays.
 */
export const attestations = pgTable(
  'attestations',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    productId: uuid('product_id').references(() => products.id, { onDelete: 'cascade' }),
    requirementId: text('requirement_id').notNull(),
    verdict: text('verdict', { enum: ['met', 'not_applicable'] }).notNull(),
    justification: text('justification').notNull(),
    evidenceUrl: text('evidence_url'),
    /** Who attested, as shown to people (an e-mail address, or an API key's name). */
    author: text('author').notNull(),
    /** The actor behind it (`user:<id>`, `api_key:<id>`), for the audit trail. */
    actor: text('actor').notNull(),
    attestedAt: instant('attested_at').notNull(),
    expiresAt: instant('expires_at'),
    withdrawnAt: instant('withdrawn_at'),
    withdrawnBy: text('withdrawn_by'),
  },
  (t) => [
    index('attestations_company_requirement_idx').on(t.companyId, t.requirementId),
    check('attestations_verdict_check', sql`${t.verdict} in ('met', 'not_applicable')`),
    check('attestations_justification_check', sql`length(btrim(${t.justification})) > 0`),
  ],
);

/**
 * The CRA facts of a product that the compliance engine reads: its category (which conformity
 * route applies, Art. 32), when it was placed on the EU market, and its support period (Art. 13(8)).
 */
export const productCraFacts = pgTable(
  'product_cra_facts',
  {
    productId: uuid('product_id')
      .primaryKey()
      .references(() => products.id, { onDelete: 'cascade' }),
    companyId: companyIdColumn(),
    category: text('category', { enum: ['default', 'important_i', 'important_ii', 'critical'] })
      .notNull()
      .default('default'),
    placedOnMarketAt: instant('placed_on_market_at'),
    supportEndsAt: instant('support_ends_at'),
    supportJustification: text('support_justification'),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [index('product_cra_facts_company_idx').on(t.companyId)],
);
