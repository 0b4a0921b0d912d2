import { index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { reports } from './reports.js';
import { companyIdColumn } from './tenant.js';

/** One product version and the decision about it (CSAF `product_status`, VEX status). */
export type AdvisoryProductRow = {
  productIdentifier: string | null;
  vendor: string;
  name: string;
  version: string;
  status: 'known_affected' | 'fixed' | 'not_affected' | 'under_investigation';
  /** CSAF 2.0 flag label; required for not_affected. */
  justification: string | null;
  /** Free-text impact statement (CSAF threat of category impact). */
  impact: string | null;
};
export type AdvisoryRemediation = {
  category: 'vendor_fix' | 'mitigation' | 'workaround' | 'none_available' | 'no_fix_planned';
  details: string;
  url: string | null;
};
export type AdvisoryAcknowledgment = { name: string; organization: string | null; consentRecordedAt: string };
export type AdvisoryRevision = { number: string; date: string; summary: string };

/**
 * Security advisories (issue 12): the editable working copy of one advisory. What the public sees
 * is never this row but the bytes in `advisory_documents`, written at publish, revise and withdraw.
 */
export const advisories = pgTable(
  'advisories',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    reportId: uuid('report_id')
      .notNull()
      .references(() => reports.id, { onDelete: 'cascade' }),
    /** `{SLUG}-{YEAR}-{NNNN}`, unique per company, fixed at creation. */
    trackingId: text('tracking_id').notNull(),
    status: text('status', { enum: ['draft', 'published', 'withdrawn'] }).notNull(),
    title: text('title').notNull(),
    summary: text('summary').notNull(),
    description: text('description').notNull(),
    cve: text('cve'),
    /** Other vulnerability ids: `{ systemName, text }`. */
    ids: jsonb('ids').$type<{ systemName: string; text: string }[]>().notNull().default([]),
    cvssVector: text('cvss_vector'),
    cwe: text('cwe'),
    cweName: text('cwe_name'),
    products: jsonb('products').$type<AdvisoryProductRow[]>().notNull().default([]),
    remediation: jsonb('remediation').$type<AdvisoryRemediation | null>(),
    acknowledgments: jsonb('acknowledgments').$type<AdvisoryAcknowledgment[]>().notNull().default([]),
    tlp: text('tlp', { enum: ['CLEAR'] })
      .notNull()
      .default('CLEAR'),
    revisions: jsonb('revisions').$type<AdvisoryRevision[]>().notNull().default([]),
    initialReleaseAt: instant('initial_release_at'),
    currentReleaseAt: instant('current_release_at'),
    withdrawnAt: instant('withdrawn_at'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('advisories_company_tracking_key').on(t.companyId, t.trackingId),
    index('advisories_company_created_idx').on(t.companyId, t.createdAt),
    index('advisories_report_idx').on(t.reportId),
  ],
);

/**
 * A released CSAF document as the exact bytes served (so its hashes never change), one row per
 * kind (`csaf` advisory, `vex`) and version; the highest version of a kind is the one served.
 */
export const advisoryDocuments = pgTable(
  'advisory_documents',
  {
    advisoryId: uuid('advisory_id')
      .notNull()
      .references(() => advisories.id, { onDelete: 'cascade' }),
    companyId: companyIdColumn(),
    kind: text('kind', { enum: ['csaf', 'vex'] }).notNull(),
    version: integer('version').notNull(),
    trackingId: text('tracking_id').notNull(),
    content: text('content').notNull(),
    sha256: text('sha256').notNull(),
    sha512: text('sha512').notNull(),
    initialReleaseAt: instant('initial_release_at').notNull(),
    currentReleaseAt: instant('current_release_at').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.advisoryId, t.kind, t.version] }), index('advisory_documents_company_idx').on(t.companyId, t.currentReleaseAt)],
);
