import { uuid } from 'drizzle-orm/pg-core';
import { companies } from './companies.js';

/**
 * The tenant column of every company-owned table (ADR 0004): required, and removed with its company.
 * Kept apart from columns.ts so that companies.ts can use those helpers without an import cycle.
 */
export const companyIdColumn = () =>
  uuid('company_id')
    .notNull()
    .references(() => companies.id, { onDelete: 'cascade' });
