import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { reports } from './reports.js';

/**
 * AI triage work queue: one job per report of a company with AI triage enabled, written in the
 * report's transaction. The triage worker (src/modules/triage/triage-worker.ts) claims due jobs with
 * `for update skip locked` and a lease (`locked_until`); a job whose lease lapsed (its worker died)
 * is due again. A failed attempt is retried after a back-off held in the same column.
 */
export const triageJobs = pgTable(
  'triage_jobs',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    reportId: uuid('report_id')
      .notNull()
      .references(() => reports.id, { onDelete: 'cascade' }),
    /** pending, running, done, failed. */
    state: text('state').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    /** Lease of a running job, or the earliest next attempt of a pending one; null = due now. */
    lockedUntil: instant('locked_until'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('triage_jobs_report_key').on(t.reportId),
    index('triage_jobs_pending_idx')
      .on(t.createdAt)
      .where(sql`${t.state} = 'pending'`),
    index('triage_jobs_open_idx')
      .on(t.lockedUntil)
      .where(sql`${t.state} in ('pending', 'running')`),
    index('triage_jobs_company_idx').on(t.companyId),
  ],
);
