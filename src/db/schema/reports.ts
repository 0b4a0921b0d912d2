import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, real, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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
    /** Triage facts (issue 7; contract "Triage facts and Article 14"). */
    severity: text('severity'),
    cvssVector: text('cvss_vector'),
    cvssScore: real('cvss_score'),
    cwe: text('cwe'),
    duplicateOf: uuid('duplicate_of'),
    activelyExploited: boolean('actively_exploited'),
    exploitationEvidence: text('exploitation_evidence'),
    awareAt: timestamp('aware_at', { withTimezone: true, precision: 3 }),
    severeIncident: boolean('severe_incident'),
    fixAvailableAt: timestamp('fix_available_at', { withTimezone: true, precision: 3 }),
    memberStates: text('member_states').array().notNull().default(sql`ARRAY[]::text[]`),
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
