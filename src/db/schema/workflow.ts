import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { reports } from './reports.js';
import { users } from './users.js';

const reportId = () =>
  uuid('report_id')
    .notNull()
    .references(() => reports.id, { onDelete: 'cascade' });

/**
 * The triage suggestion of a report (one per report; a re-run replaces it). Only ever a
 * suggestion: nothing in it is applied to the report until a person acts on it.
 */
export const triageSuggestions = pgTable(
  'triage_suggestions',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    reportId: reportId(),
    /** `built-in`, or `llm:<model>` when an OpenAI-compatible endpoint answered. */
    source: text('source').notNull(),
    suggestion: jsonb('suggestion').$type<Record<string, unknown>>().notNull(),
    /** pending, accepted, dismissed: the person's decision. */
    decision: text('decision').notNull().default('pending'),
    decidedBy: text('decided_by'),
    decidedAt: instant('decided_at'),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [uniqueIndex('triage_suggestions_report_key').on(t.reportId), index('triage_suggestions_company_idx').on(t.companyId)],
);

/** The thread between the researcher (through the private status link) and the company. */
export const reportMessages = pgTable(
  'report_messages',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    reportId: reportId(),
    /** researcher or company. */
    author: text('author').notNull(),
    /** The company user who wrote it; null for the researcher. */
    authorId: text('author_id'),
    body: text('body').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('report_messages_report_idx').on(t.reportId, t.createdAt), index('report_messages_company_idx').on(t.companyId)],
);

/**
 * Team-only notes beside the researcher thread (docs/workflow.md "Team notes"): a table of their
 * own so that no reader of the thread (status page, researcher mail, the `vulnerability.message`
 * event, coordination) can show one by forgetting a filter.
 */
export const reportNotes = pgTable(
  'report_notes',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    reportId: reportId(),
    /** The member who wrote it; null when an API key did, or once the member was removed. */
    authorId: uuid('author_id').references(() => users.id, { onDelete: 'set null' }),
    body: text('body').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('report_notes_report_idx').on(t.reportId, t.createdAt), index('report_notes_company_idx').on(t.companyId)],
);

/**
 * Overdue response clocks already announced (docs/workflow.md "Response clocks"): the unique key
 * (report, clock) makes "once per overdue report" hold across instances and restarts.
 */
export const responseAlerts = pgTable(
  'response_alerts',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    reportId: reportId(),
    /** acknowledge or assess. */
    clock: text('clock').notNull(),
    dueAt: instant('due_at').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [uniqueIndex('response_alerts_key').on(t.reportId, t.clock), index('response_alerts_company_idx').on(t.companyId)],
);

/**
 * Article 14 deadline alerts already raised: the unique key (report, stage, kind, due time) makes
 * "once per stage" hold across instances and restarts. A due time that moves (awareAt corrected)
 * is a new deadline and may alert again.
 */
export const article14Alerts = pgTable(
  'article14_alerts',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    reportId: reportId(),
    stage: text('stage').notNull(),
    /** approaching or overdue. */
    kind: text('kind').notNull(),
    dueAt: instant('due_at').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [uniqueIndex('article14_alerts_key').on(t.reportId, t.stage, t.kind, t.dueAt), index('article14_alerts_company_idx').on(t.companyId)],
);

/**
 * A filter set of the reports inbox saved under a name (docs/workflow.md "Saved filters"): a
 * member's own (`user_id`; removing the member removes them), or, with no member, the one set the
 * company's API keys share. Names are unique per owner, whatever their case.
 */
export const savedFilters = pgTable(
  'saved_filters',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    /** The inbox criteria (tab, severity, product, assignee, sort), as `InboxCriteria` parses them. */
    criteria: jsonb('criteria').$type<Record<string, string>>().notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('saved_filters_user_name').on(t.userId, sql`lower(${t.name})`),
    uniqueIndex('saved_filters_keys_name')
      .on(t.companyId, sql`lower(${t.name})`)
      .where(sql`${t.userId} is null`),
    index('saved_filters_company_idx').on(t.companyId),
  ],
);
