import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, real, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { users } from './users.js';

/**
 * Vulnerability reports filed into a company's portal (form, bulk endpoint, later REST and MCP).
 * `id` is the public `submissionId`: a random UUID, so it is unguessable and reveals no volume.
 */
export const reports = pgTable(
  'reports',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    /** Which surface filed it: portal_form, bulk, api, mcp, dashboard, coordination. */
    source: text('source').notNull(),
    status: text('status').notNull(),
    description: text('description').notNull(),
    productName: text('product_name'),
    vulnerabilityType: text('vulnerability_type'),
    stepsToReproduce: text('steps_to_reproduce'),
    impact: text('impact'),
    contactEmail: text('contact_email'),
    pgpKey: text('pgp_key'),
    /** Triage facts (issue 7; docs/workflow.md "Lifecycle"). */
    severity: text('severity'),
    cvssVector: text('cvss_vector'),
    cvssScore: real('cvss_score'),
    cwe: text('cwe'),
    /** The third-party component the flaw lies in (a package URL): CRA Article 13(6) asks that its maintainer be told. */
    componentPurl: text('component_purl'),
    duplicateOf: uuid('duplicate_of'),
    activelyExploited: boolean('actively_exploited'),
    exploitationEvidence: text('exploitation_evidence'),
    awareAt: instant('aware_at'),
    severeIncident: boolean('severe_incident'),
    fixAvailableAt: instant('fix_available_at'),
    memberStates: text('member_states')
      .array()
      .notNull()
      .default(sql`ARRAY[]::text[]`),
    /** SHA-256 of the researcher's status capability token; the token itself is never stored. */
    statusTokenDigest: text('status_token_digest').notNull(),
    /**
     * The researcher asked on the form for e-mail about this report (the API and the bulk endpoint
     * never opt in). The token in their mails' unsubscribe link is kept in clear: it can only stop
     * these mails, and every later mail must carry it again.
     */
    researcherUpdates: boolean('researcher_updates').notNull().default(false),
    researcherMailToken: text('researcher_mail_token'),
    /**
     * When the researcher confirmed the address from the first mail (issue 32, finding 4): until
     * then that one mail, which links to no report text, is all the address gets.
     */
    researcherConfirmedAt: instant('researcher_confirmed_at'),
    /**
     * Set when the researcher's personal data was pseudonymised (erasure request or retention rule;
     * docs/retention.md): the name the thread shows instead, and when.
     */
    researcherPseudonym: text('researcher_pseudonym'),
    pseudonymisedAt: instant('pseudonymised_at'),
    /** When the body was removed under the retention policy (reports closed as spam or not applicable). */
    bodyRemovedAt: instant('body_removed_at'),
    /** The member who owns the report's handling ("my reports"; docs/workflow.md "Assignee"); a removed member leaves it unassigned. */
    assigneeId: uuid('assignee_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    index('reports_company_created_idx').on(t.companyId, t.createdAt),
    uniqueIndex('reports_status_token_key').on(t.statusTokenDigest),
    index('reports_company_assignee_idx').on(t.companyId, t.assigneeId),
  ],
);
