import { sql } from 'drizzle-orm';
import { check, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { companies } from './companies.js';
import { instant } from './columns.js';

/**
 * A company's settings for reaching the maintainers of the components it integrates (CRA Article
 * 13(6); docs/upstream.md), one row per company, created on first change.
 *
 * `github_token` is the company's GitHub token, sealed under the operator key like webhook secrets
 * (`src/kernel/secret-box.ts`, bound to `github-token:<company id>`; ADR 0016), never returned and
 * never logged; the check keeps anything unsealed out. `maintained_purl_prefixes` are the package
 * URLs the company maintains: another company of this instance that finds a flaw in one of them is
 * pointed at this company (a public fact, like the portal's security contact).
 */
export const upstreamSettings = pgTable(
  'upstream_settings',
  {
    companyId: uuid('company_id')
      .primaryKey()
      .references(() => companies.id, { onDelete: 'cascade' }),
    githubToken: text('github_token'),
    /** When the token was last set (shown instead of the token). */
    githubTokenSetAt: instant('github_token_set_at'),
    maintainedPurlPrefixes: text('maintained_purl_prefixes')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    /** Days a notified participant has to acknowledge before a reminder (null: 7); docs/coordination.md "Reminders and escalation". */
    caseReminderDays: integer('case_reminder_days'),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [check('upstream_settings_github_token_sealed', sql`${t.githubToken} is null or ${t.githubToken} like 'sb1.%'`)],
);
