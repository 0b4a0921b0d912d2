import { index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';

/**
 * A company's retention policy (docs/retention.md "Rules"); a company without a row follows the
 * defaults of src/modules/retention/retention.schemas.ts. A null number of days means "keep".
 * `pseudonym_salt` keys the researcher pseudonyms (docs/retention.md "Pseudonyms"); it never leaves
 * the database.
 */
export const retentionPolicies = pgTable('retention_policies', {
  companyId: companyIdColumn().primaryKey(),
  reporterDataDays: integer('reporter_data_days'),
  rejectedBodyDays: integer('rejected_body_days'),
  accessRecordDays: integer('access_record_days'),
  pseudonymSalt: text('pseudonym_salt').notNull(),
  updatedAt: instant('updated_at').notNull(),
  lastRunAt: instant('last_run_at'),
});

/** A legal hold on a report, a product or the whole company: held data is never purged or erased while it stands. */
export const legalHolds = pgTable(
  'legal_holds',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    /** company, product or report. */
    scope: text('scope', { enum: ['company', 'product', 'report'] }).notNull(),
    /** The product's or report's id; null for the whole company. */
    targetId: uuid('target_id'),
    reason: text('reason').notNull(),
    placedBy: text('placed_by').notNull(),
    placedAt: instant('placed_at').notNull(),
    releasedBy: text('released_by'),
    releasedAt: instant('released_at'),
  },
  (t) => [index('legal_holds_company_idx').on(t.companyId, t.releasedAt)],
);

/**
 * A researcher's erasure request (GDPR Art. 17), recorded without the requester's address, browser
 * string or contact: only which reports it covers, through which channel, and the pseudonym given.
 * `state` is `applied`, or `held` until the legal holds over its reports are released.
 */
export const erasureRequests = pgTable(
  'erasure_requests',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    /** The report the request came through (status link) or was recorded against (administrator). */
    reportId: uuid('report_id').notNull(),
    /** researcher (status link) or administrator (a request received elsewhere). */
    channel: text('channel', { enum: ['researcher', 'administrator'] }).notNull(),
    pseudonym: text('pseudonym').notNull(),
    state: text('state', { enum: ['applied', 'held'] }).notNull(),
    /** How many reports carried the same person's data (all pseudonymised with the same name). */
    reportCount: integer('report_count').notNull(),
    recordedBy: text('recorded_by').notNull(),
    requestedAt: instant('requested_at').notNull(),
    appliedAt: instant('applied_at'),
  },
  (t) => [index('erasure_requests_company_idx').on(t.companyId, t.requestedAt), index('erasure_requests_report_idx').on(t.reportId)],
);
