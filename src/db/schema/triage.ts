import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { reports } from './reports.js';

/** Every change of a report's state or triage facts: who, when, from what to what. */
export const reportEvents = pgTable(
  'report_events',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    reportId: uuid('report_id')
      .notNull()
      .references(() => reports.id, { onDelete: 'cascade' }),
    at: instant('at').notNull(),
    actorType: text('actor_type').notNull(),
    actorId: text('actor_id'),
    fromStatus: text('from_status'),
    toStatus: text('to_status'),
    /** The triage facts that changed, with their new values. */
    changes: jsonb('changes').$type<Record<string, unknown>>().notNull(),
  },
  (t) => [index('report_events_report_idx').on(t.reportId, t.at)],
);

/** A filed Article 14 stage: when, by whom, and the Single Reporting Platform's reference. */
export const article14Filings = pgTable(
  'article14_filings',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    reportId: uuid('report_id')
      .notNull()
      .references(() => reports.id, { onDelete: 'cascade' }),
    stage: text('stage').notNull(),
    filedAt: instant('filed_at').notNull(),
    filedBy: text('filed_by'),
    reference: text('reference'),
    recordedAt: instant('recorded_at').notNull(),
  },
  (t) => [uniqueIndex('article14_filings_stage_key').on(t.reportId, t.stage)],
);
