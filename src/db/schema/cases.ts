import { index, integer, jsonb, pgTable, text, uniqueIndex, uuid, date, primaryKey } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { instant } from './columns.js';
import { companyIdColumn } from './tenant.js';
import { reports } from './reports.js';
import { bytea } from './bytea.js';

/**
 * Coordination cases (issue 34, CRA Article 13(6)): one flaw worked with the people outside the
 * company who must hear of it. `version` rises with every change a prepared notice depends on, so
 * a confirmation of a stale preparation is refused.
 */
export const cases = pgTable(
  'cases',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    title: text('title').notNull(),
    summary: text('summary'),
    /** report, known_vulnerability or scratch: where it was opened from. */
    origin: text('origin').notNull(),
    /** The known-vulnerability match it was opened from (origin known_vulnerability). */
    originRef: text('origin_ref'),
    /** open or closed. */
    state: text('state').notNull(),
    /** none, proposed, agreed, ended. */
    embargoState: text('embargo_state').notNull(),
    /** The proposed (or agreed) public disclosure date. */
    embargoUntil: date('embargo_until', { mode: 'string' }),
    embargoEndedAt: instant('embargo_ended_at'),
    embargoEndReason: text('embargo_end_reason'),
    /** When the reminder job first suggested bringing in a coordinator (a participant stayed silent for two periods). */
    coordinatorSuggestedAt: instant('coordinator_suggested_at'),
    version: integer('version').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [index('cases_company_updated_idx').on(t.companyId, t.updatedAt)],
);

/** The case a row belongs to: removed with it. */
const caseId = () =>
  uuid('case_id')
    .notNull()
    .references(() => cases.id, { onDelete: 'cascade' });

/** The company's reports a case holds (one case may hold several). */
export const caseReports = pgTable(
  'case_reports',
  {
    companyId: companyIdColumn(),
    caseId: caseId(),
    reportId: uuid('report_id')
      .notNull()
      .references(() => reports.id, { onDelete: 'cascade' }),
    addedAt: instant('added_at').notNull(),
    /**
     * The report's place in the list the case was opened with (0 first): reports added at one moment
     * keep the caller's order, and the first supplies the GitHub notice's CVSS vector and the OSV
     * draft. Null on rows from before it was kept (ordered by id among themselves, as they were).
     */
    position: integer('position'),
  },
  (t) => [primaryKey({ columns: [t.caseId, t.reportId] }), index('case_reports_report_idx').on(t.reportId), index('case_reports_company_idx').on(t.companyId)],
);

/**
 * Who takes part, with a role and a status in the CSAF involvement vocabulary. `channel` says how a
 * notice reaches them (cradle, email, github, none) and `address` where: a company slug, an e-mail
 * address, `owner/repo`, or a repository URL with no channel. For the `cradle` channel the other
 * company's id and the report filed into its inbox are kept, so its answers flow back here.
 */
export const caseParticipants = pgTable(
  'case_participants',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    caseId: caseId(),
    role: text('role').notNull(),
    name: text('name').notNull(),
    channel: text('channel').notNull(),
    address: text('address'),
    pgpKey: text('pgp_key'),
    status: text('status').notNull(),
    notifiedAt: instant('notified_at'),
    acknowledgedAt: instant('acknowledged_at'),
    fixAvailableAt: instant('fix_available_at'),
    /** pending, accepted, countered. */
    embargoResponse: text('embargo_response').notNull(),
    embargoCounterUntil: date('embargo_counter_until', { mode: 'string' }),
    /** SHA-256 of the private participant link's token; the token itself is never stored. */
    linkTokenDigest: text('link_token_digest'),
    peerCompanyId: uuid('peer_company_id'),
    peerReportId: uuid('peer_report_id'),
    /** The GitHub repository advisory a `github` notice became (GHSA id) and its page. */
    advisoryId: text('advisory_id'),
    advisoryUrl: text('advisory_url'),
    /** When the reminder for the notice of `notified_at` went out (later than it: this period's reminder is sent). */
    remindedAt: instant('reminded_at'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    index('case_participants_case_idx').on(t.caseId),
    index('case_participants_company_idx').on(t.companyId),
    index('case_participants_peer_idx').on(t.peerCompanyId),
    uniqueIndex('case_participants_link_key').on(t.linkTokenDigest),
  ],
);

/**
 * A notice prepared for one participant: exactly what will go out. It is sent only when a PSIRT
 * member confirms it while the case is still at `caseVersion`.
 */
export const caseNotices = pgTable(
  'case_notices',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    caseId: caseId(),
    participantId: uuid('participant_id')
      .notNull()
      .references(() => caseParticipants.id, { onDelete: 'cascade' }),
    caseVersion: integer('case_version').notNull(),
    channel: text('channel').notNull(),
    recipient: text('recipient').notNull(),
    subject: text('subject').notNull(),
    /** What goes out on the channel (before encryption). */
    body: text('body').notNull(),
    /**
     * The full notice behind the private link when the channel itself may not carry it (e-mail
     * without a key carries only the link); null when `body` is the whole notice.
     */
    sharedBody: text('shared_body'),
    encrypted: text('encrypted').notNull(),
    /** prepared, queued (a `github` notice waiting for the delivery job), sent, failed, superseded. */
    state: text('state').notNull(),
    /** Why a queued notice could not be delivered (state failed), or the last transient failure. */
    failure: text('failure'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: instant('next_attempt_at'),
    /** A delivery job holds the notice until then: two instances never post it twice. */
    leaseUntil: instant('lease_until'),
    preparedBy: text('prepared_by').notNull(),
    preparedAt: instant('prepared_at').notNull(),
    sentBy: text('sent_by'),
    sentAt: instant('sent_at'),
  },
  (t) => [
    index('case_notices_case_idx').on(t.caseId),
    index('case_notices_company_idx').on(t.companyId),
    index('case_notices_queued_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.state} = 'queued'`),
  ],
);

/** The thread shared with one participant: the company's side and theirs (untrusted text). */
export const caseMessages = pgTable(
  'case_messages',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    caseId: caseId(),
    participantId: uuid('participant_id')
      .notNull()
      .references(() => caseParticipants.id, { onDelete: 'cascade' }),
    /** company or participant. */
    author: text('author').notNull(),
    authorId: text('author_id'),
    body: text('body').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('case_messages_case_idx').on(t.caseId, t.createdAt), index('case_messages_company_idx').on(t.companyId)],
);

/** The append-only log of a case: who did what, when (ids and facts, never report or message text). */
export const caseEvents = pgTable(
  'case_events',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    caseId: caseId(),
    participantId: uuid('participant_id'),
    actor: text('actor').notNull(),
    kind: text('kind').notNull(),
    details: jsonb('details').$type<Record<string, unknown>>().notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('case_events_case_idx').on(t.caseId, t.createdAt), index('case_events_company_idx').on(t.companyId)],
);

/**
 * A fix shared with the case's upstream (CRA Article 13(6) "share the fix"): a patch (a unified
 * diff) or a description, with an optional OSV draft of the upstream advisory. Only participants of
 * role `upstream_maintainer` see it (their private link, their inbound case, encrypted mail).
 */
export const caseFixes = pgTable(
  'case_fixes',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    caseId: caseId(),
    /** patch or description. */
    kind: text('kind').notNull(),
    body: text('body').notNull(),
    /** The OSV-format draft of the upstream advisory, made from the case's first report when asked. */
    osvDraft: jsonb('osv_draft').$type<Record<string, unknown>>(),
    createdBy: text('created_by').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('case_fixes_case_idx').on(t.caseId, t.createdAt), index('case_fixes_company_idx').on(t.companyId)],
);

/**
 * A file posted with a case message (issue 34 Build 3, "messages and attachments"). It belongs to
 * the message, so it is seen by exactly who sees the message (the participant whose thread it is,
 * and the company) and is removed with it, its case or its company. The name is sanitised on the
 * way in; the media type is what the bytes were sniffed to be, never what the sender declared.
 */
export const caseAttachments = pgTable(
  'case_attachments',
  {
    id: uuid('id').primaryKey(),
    companyId: companyIdColumn(),
    caseId: caseId(),
    messageId: uuid('message_id')
      .notNull()
      .references(() => caseMessages.id, { onDelete: 'cascade' }),
    participantId: uuid('participant_id')
      .notNull()
      .references(() => caseParticipants.id, { onDelete: 'cascade' }),
    filename: text('filename').notNull(),
    contentType: text('content_type').notNull(),
    size: integer('size').notNull(),
    sha256: text('sha256').notNull(),
    content: bytea('content').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [
    index('case_attachments_message_idx').on(t.messageId),
    index('case_attachments_case_idx').on(t.caseId),
    index('case_attachments_company_idx').on(t.companyId),
  ],
);
