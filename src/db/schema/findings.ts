import { index, integer, pgTable, pgView, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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

/** A finding's columns: the `findings` table's and the `findings_published` view's. */
const findingColumns = () => ({
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
});

/**
 * A finding per (product, tool, fingerprint). `state` moves open -> fixed when a newer scan by
 * the same tool no longer reports it, and back to open (reopened) when one does again. Written
 * ahead of the scan that finds it (ADR 0025): read it through `publishedFindings`.
 */
export const findings = pgTable('findings', findingColumns(), (t) => [
  uniqueIndex('findings_product_tool_fingerprint_key').on(t.productId, t.tool, t.fingerprint),
  index('findings_company_state_severity_idx').on(t.companyId, t.state, t.severity),
]);

/**
 * The findings as their stored scans left them (migration 0039, ADR 0025): a finding whose first
 * scan is not stored yet is absent, and a fix or reopening of a stored scan not yet folded into
 * the row (`findingTransitions`) is applied. Every reader reads this, never `findings`.
 */
export const publishedFindings = pgView('findings_published', findingColumns()).existing();

/**
 * A fix or a reopening a SARIF push has decided for a finding, written ahead of its scan (ADR 0025):
 * in effect once the scan `scanId` is stored, folded into the finding right after and removed.
 * At most one per finding: a product's pushes take turns (`sarifStages`).
 */
export const findingTransitions = pgTable(
  'finding_transitions',
  {
    findingId: uuid('finding_id')
      .primaryKey()
      .references(() => findings.id, { onDelete: 'cascade' }),
    companyId: companyIdColumn(),
    scanId: uuid('scan_id').notNull(),
    kind: text('kind', { enum: ['fix', 'reopen'] }).notNull(),
    at: instant('at').notNull(),
    severity: text('severity', { enum: ['critical', 'high', 'medium', 'low', 'info'] }),
    level: text('level', { enum: ['error', 'warning', 'note', 'none'] }),
    securitySeverity: text('security_severity'),
    message: text('message'),
    artifactUri: text('artifact_uri'),
    startLine: integer('start_line'),
  },
  (t) => [index('finding_transitions_scan_idx').on(t.scanId)],
);

/**
 * The SARIF push a product is storing (ADR 0025): one at a time per product, from before its
 * first staged row until its transitions are folded in. `heartbeatAt` moves with every statement
 * of the push; an entry left still for STALE_CLAIM_MS belongs to a push that never ended, and the
 * company's next push removes its rows.
 */
export const sarifStages = pgTable(
  'sarif_stages',
  {
    productId: uuid('product_id')
      .primaryKey()
      .references(() => products.id, { onDelete: 'cascade' }),
    companyId: companyIdColumn(),
    scanId: uuid('scan_id').notNull(),
    heartbeatAt: instant('heartbeat_at').notNull(),
  },
  (t) => [index('sarif_stages_company_idx').on(t.companyId)],
);
