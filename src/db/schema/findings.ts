import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { bytea } from './bytea.js';
import { products } from './products.js';

/** One pushed SARIF log and what its reconciliation did. */
export const sarifScans = pgTable(
  'sarif_scans',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    tools: text('tools').array().notNull(),
    resultCount: integer('result_count').notNull(),
    findingCount: integer('finding_count').notNull(),
    newCount: integer('new_count').notNull(),
    fixedCount: integer('fixed_count').notNull(),
    reopenedCount: integer('reopened_count').notNull(),
    unchangedCount: integer('unchanged_count').notNull(),
    sha256: text('sha256').notNull(),
    byteSize: integer('byte_size').notNull(),
    /** The log as pushed, gzip-compressed (evidence of the test, CRA Annex I Part II (3)). */
    document: bytea('document').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('sarif_scans_company_created_idx').on(t.companyId, t.createdAt)],
);

/**
 * A finding per (product, tool, fingerprint). `state` moves open -> fixed when a newer scan by
 * the same tool no longer reports it, and back to open (reopened) when one does again.
 */
export const findings = pgTable(
  'findings',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    productId: uuid('product_id')
      .notNull()
      .references(() => products.id, { onDelete: 'cascade' }),
    tool: text('tool').notNull(),
    ruleId: text('rule_id').notNull(),
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: ['open', 'fixed'] }).notNull(),
    severity: text('severity', { enum: ['critical', 'high', 'medium', 'low', 'info'] }).notNull(),
    level: text('level', { enum: ['error', 'warning', 'note', 'none'] }).notNull(),
    securitySeverity: text('security_severity'),
    message: text('message').notNull(),
    artifactUri: text('artifact_uri'),
    startLine: integer('start_line'),
    firstSeenScanId: uuid('first_seen_scan_id').notNull(),
    firstSeenAt: instant('first_seen_at').notNull(),
    fixedScanId: uuid('fixed_scan_id'),
    fixedAt: instant('fixed_at'),
    reopenCount: integer('reopen_count').notNull().default(0),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('findings_product_tool_fingerprint_key').on(t.productId, t.tool, t.fingerprint),
    index('findings_company_state_severity_idx').on(t.companyId, t.state, t.severity),
  ],
);
