import { sql } from 'drizzle-orm';
import { bigint, check, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { companyIdColumn } from './tenant.js';

/**
 * Per company and data domain, a counter that rises once with every committed transaction that
 * changed any row of that domain (ADR 0012). Database triggers keep it, so a change made by any
 * instance, a migration or a person in psql counts. An in-process cache of something computed from
 * the domain's rows is current exactly while the counter it was computed at is still the counter
 * read now. The domains and what each watches: src/db/version-domains.ts.
 */
export const companyDataVersions = pgTable(
  'company_data_versions',
  {
    companyId: companyIdColumn(),
    domain: text('domain').notNull(),
    version: bigint('version', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.companyId, t.domain] }),
    check('company_data_versions_domain_check', sql`${t.domain} in ('company', 'products', 'reports', 'compliance')`),
  ],
);

/**
 * The domains one transaction has changed, written by the change triggers and consumed at its commit
 * by a deferred trigger that raises `company_data_versions` (so a long transaction does not hold the
 * counter's row lock while it works). Keyed by the transaction, so concurrent transactions never
 * wait on each other here; rows live only inside their own transaction (unlogged, see the migration).
 */
export const companyDataPending = pgTable(
  'company_data_pending',
  {
    xact: bigint('xact', { mode: 'number' })
      .notNull()
      .default(sql`txid_current()`),
    companyId: uuid('company_id').notNull(),
    domain: text('domain').notNull(),
  },
  (t) => [primaryKey({ columns: [t.xact, t.companyId, t.domain] })],
);
