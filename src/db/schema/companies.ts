import { sql } from 'drizzle-orm';
import { boolean, check, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { PLANS } from '../../kernel/access.js';
import { instant } from './columns.js';

export const companies = pgTable(
  'companies',
  {
    id: uuid('id').primaryKey(),
    slug: text('slug').notNull(),
    name: text('name').notNull(),
    plan: text('plan', { enum: PLANS }).notNull(),
    aiTriage: boolean('ai_triage').notNull().default(false),
    securityEmail: text('security_email'),
    policyText: text('policy_text'),
    policyUrl: text('policy_url'),
    languages: text('languages')
      .array()
      .notNull()
      .default(sql`ARRAY['en']::text[]`),
    preferredReportFormat: text('preferred_report_format'),
    pgpPublicKey: text('pgp_public_key'),
    /** Safe-harbour statement shown to researchers on the portal (Markdown, rendered like the policy). */
    safeHarbour: text('safe_harbour'),
    /** Researchers thanked before Cradle (or otherwise), in Markdown, on the portal's acknowledgments page. */
    acknowledgmentsText: text('acknowledgments_text'),
    /** Expected response times promised to researchers, in days (null: not stated). */
    responseAcknowledgeDays: integer('response_acknowledge_days'),
    responseAssessDays: integer('response_assess_days'),
    responseResolveDays: integer('response_resolve_days'),
    /** First-report activation milestone (docs/intake.md "What filing a report does"): set once, by the first filed report. */
    firstReportAt: instant('first_report_at'),
    /** Every member must sign in with a second factor (set by an administrator on /account). */
    requireSecondFactor: boolean('require_second_factor').notNull().default(false),
    /**
     * Offboarding (docs/backup.md "Deleting a company"): when the operator asked for the deletion, and
     * when the purge runs. While set, the company's portal, API and dashboard answer as suspended.
     */
    deletionRequestedAt: instant('deletion_requested_at'),
    deletionDueAt: instant('deletion_due_at'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [uniqueIndex('companies_slug_key').on(t.slug), check('companies_plan_check', sql`${t.plan} in (${sql.raw(PLANS.map((p) => `'${p}'`).join(', '))})`)],
);

/**
 * The instance's record of each purged company: a digest of its id (never the id, slug or name,
 * which the purge removes from every table), when the deletion was asked for and when it ran, and
 * how many rows went. Not company-scoped: the company no longer exists.
 */
export const companyDeletions = pgTable('company_deletions', {
  companyDigest: text('company_digest').primaryKey(),
  requestedAt: instant('requested_at').notNull(),
  purgedAt: instant('purged_at').notNull(),
  rowsDeleted: integer('rows_deleted').notNull(),
});
