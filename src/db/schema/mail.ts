import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { users } from './users.js';

/**
 * Outgoing e-mail, queued from the outbox fan-out or by a filing (docs/mail.md). A row holds what
 * its template needs (`data`: ids, product, status, links), never report text; `data` is emptied
 * once the mail is sent or given up, so a status link travels through the database only until then.
 */
export const mailMessages = pgTable(
  'mail_messages',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    /** Template and preference: `report.new`, `researcher.ack`, ... (src/modules/mail/mail-kinds.ts). */
    kind: text('kind').notNull(),
    recipient: text('recipient').notNull(),
    /** The team member it is for (preferences, unsubscribe); null for a researcher. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** The report a researcher mail is about: its OpenPGP key encrypts the mail. */
    reportId: uuid('report_id'),
    data: jsonb('data').$type<Record<string, string>>(),
    /** `{event id}:{recipient}` for fan-out rows: a re-dispatched event queues nothing twice. */
    dedupeKey: text('dedupe_key'),
    /**
     * pending, sent, dead (retries exhausted), suppressed (recipient cap reached or unsubscribed;
     * never sent), folded (a new-report notice past the cap, counted in the digest `digest_id`).
     */
    state: text('state').notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: instant('next_attempt_at').notNull(),
    lockedUntil: instant('locked_until'),
    lastError: text('last_error'),
    encrypted: boolean('encrypted').notNull().default(false),
    createdAt: instant('created_at').notNull(),
    finishedAt: instant('finished_at'),
    /** For a folded notice: the `report.digest` mail that counts it (src/modules/mail/mail-digest.ts). */
    digestId: uuid('digest_id'),
  },
  (t) => [
    index('mail_messages_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.state} = 'pending'`),
    index('mail_messages_recipient_sent_idx')
      .on(sql`lower(${t.recipient})`, t.finishedAt)
      .where(sql`${t.state} = 'sent'`),
    index('mail_messages_company_idx').on(t.companyId, t.createdAt),
    uniqueIndex('mail_messages_dedupe_key').on(t.dedupeKey),
    index('mail_messages_digest_idx')
      .on(t.digestId)
      .where(sql`${t.digestId} is not null`),
  ],
);

/** A team member's choice per kind of mail; a kind without a row follows the role's default. */
export const mailPreferences = pgTable(
  'mail_preferences',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    companyId: companyIdColumn(),
    kind: text('kind').notNull(),
    enabled: boolean('enabled').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.kind] }), index('mail_preferences_company_idx').on(t.companyId)],
);
