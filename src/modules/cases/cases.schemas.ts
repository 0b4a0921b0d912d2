import { z } from 'zod';
import { MESSAGE_MAX } from '../messages/messages.js';
import { SharedFix } from './case-fixes.schemas.js';
import { AttachmentsInput, CaseAttachment } from './case-attachments.schemas.js';

/** Roles a participant plays (CSAF `involvements` speak of the party; the role is ours). */
export const PARTICIPANT_ROLES = ['finder', 'vendor', 'upstream_maintainer', 'other_vendor', 'coordinator', 'deployer'] as const;
export type ParticipantRole = (typeof PARTICIPANT_ROLES)[number];

/** CSAF 2.0 `involvements[].status` (section 3.2.1.8): each participant's own status. */
export const PARTICIPANT_STATUSES = ['not_contacted', 'contact_attempted', 'open', 'in_progress', 'completed', 'disputed'] as const;
export type ParticipantStatus = (typeof PARTICIPANT_STATUSES)[number];

/** How a notice reaches a participant; `none` when only a repository URL without a channel is known. */
export const CHANNELS = ['cradle', 'email', 'github', 'none'] as const;
export type Channel = (typeof CHANNELS)[number];

const Instant = z.iso.datetime();
const Day = z.iso.date().meta({ description: 'A calendar day (YYYY-MM-DD).', example: '2027-02-01' });

export const TITLE_MAX = 200;
export const SUMMARY_MAX = 8 * 1024;

export const OpenCaseInput = z
  .object({
    title: z
      .string({ error: 'title must be a string' })
      .trim()
      .min(1, 'title must not be empty')
      .max(TITLE_MAX, `title must be at most ${TITLE_MAX} characters`),
    summary: z
      .string()
      .trim()
      .max(SUMMARY_MAX, `summary must be at most ${SUMMARY_MAX} characters`)
      .optional()
      .meta({ description: 'What the case is about, in the words the notices will use (shared with notified participants).' }),
    reportIds: z
      .array(z.uuid({ error: 'each report id must be a submission id' }))
      .max(50)
      .optional()
      .meta({ description: "The company's reports this case holds (submission ids)." }),
    knownVulnerabilityId: z.uuid().optional().meta({ description: 'The known-vulnerability match the case is opened from.' }),
  })
  .strict()
  .meta({ id: 'OpenCaseInput' });
export type OpenCaseInput = z.infer<typeof OpenCaseInput>;

export const AddParticipantInput = z
  .object({
    role: z.enum(PARTICIPANT_ROLES).meta({ description: 'upstream_maintainer for the maintainer of a component (CRA Article 13(6)).' }),
    name: z.string().trim().min(1).max(200).optional().meta({ description: 'How the participant is named on the case; derived from the address when absent.' }),
    companySlug: z
      .string()
      .trim()
      .min(1)
      .max(63)
      .optional()
      .meta({ description: 'Another company on this Cradle instance: notified into its inbox (channel cradle).' }),
    email: z.string().trim().min(3).max(254).optional().meta({ description: 'An e-mail address (channel email).' }),
    repositoryUrl: z.string().trim().max(500).optional().meta({
      description: "The component's repository: on github.com the channel is github (owner/repo); elsewhere no channel until an e-mail address is added.",
    }),
    pgpKey: z
      .string()
      .max(64 * 1024)
      .optional()
      .meta({ description: 'An armored OpenPGP public key: e-mail to this participant is encrypted to it.' }),
  })
  .strict()
  .meta({ id: 'AddCaseParticipantInput' });
export type AddParticipantInput = z.infer<typeof AddParticipantInput>;

export const UpdateParticipantInput = z
  .object({
    status: z.enum(PARTICIPANT_STATUSES).optional(),
    fixAvailableAt: Instant.nullable().optional().meta({ description: 'When the participant made a fix available.' }),
  })
  .strict()
  .meta({ id: 'UpdateCaseParticipantInput' });

export const Participant = z
  .object({
    id: z.uuid(),
    role: z.enum(PARTICIPANT_ROLES),
    name: z.string(),
    channel: z.enum(CHANNELS),
    address: z.string().nullable(),
    encrypted: z.boolean().meta({ description: 'An OpenPGP key is known: e-mail to this participant is encrypted.' }),
    status: z.enum(PARTICIPANT_STATUSES),
    notifiedAt: Instant.nullable(),
    acknowledgedAt: Instant.nullable(),
    remindedAt: Instant.nullable().meta({ description: 'When the reminder for its latest notice went out (no acknowledgement in the period).' }),
    fixAvailableAt: Instant.nullable(),
    embargoResponse: z.enum(['pending', 'accepted', 'countered']),
    embargoCounterUntil: z.string().nullable().meta({ description: 'The date the participant proposed instead (YYYY-MM-DD).' }),
    advisory: z
      .object({ ghsaId: z.string(), url: z.string().nullable() })
      .nullable()
      .meta({ description: 'The GitHub repository advisory a `github` notice became (its GHSA id and page); null otherwise.' }),
  })
  .meta({ id: 'CaseParticipant' });
export type ParticipantView = z.infer<typeof Participant>;

/** What a case log entry records; the log keeps ids, dates and choices, never report or message text. */
export const CASE_EVENT_KINDS = [
  'opened',
  'participant_added',
  'notice_prepared',
  'notice_queued',
  'notice_sent',
  'notice_failed',
  'status_changed',
  'acknowledged',
  'embargo_proposed',
  'embargo_accepted',
  'embargo_countered',
  'embargo_ended',
  'message',
  'participant_updated',
  'reminder_sent',
  'coordinator_suggested',
  'fix_added',
] as const;
export type CaseEventKind = (typeof CASE_EVENT_KINDS)[number];

export const CaseEvent = z
  .object({
    id: z.uuid(),
    // A string rather than an enum in the API: a client written today keeps reading a log with a kind added later.
    kind: z.string().meta({
      description:
        'opened, participant_added, notice_prepared, notice_queued (github), notice_sent, notice_failed (github), status_changed (github read-back), acknowledged, embargo_proposed, embargo_accepted, embargo_countered, embargo_ended, message, participant_updated, reminder_sent, coordinator_suggested, fix_added.',
    }),
    actor: z.string(),
    participantId: z.uuid().nullable(),
    details: z.record(z.string(), z.unknown()),
    createdAt: Instant,
  })
  .meta({ id: 'CaseEvent' });

export const Embargo = z
  .object({
    state: z.enum(['none', 'proposed', 'agreed', 'ended']),
    until: z.string().nullable().meta({ description: 'Proposed or agreed public disclosure day (YYYY-MM-DD).' }),
    endedAt: Instant.nullable(),
    endReason: z.string().nullable(),
  })
  .meta({ id: 'CaseEmbargo' });

export const CaseSummary = z
  .object({
    id: z.uuid(),
    title: z.string(),
    origin: z.enum(['report', 'known_vulnerability', 'scratch']),
    state: z.enum(['open', 'closed']),
    embargo: Embargo,
    participants: z.number().int(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'CaseSummary' });
export type CaseSummaryView = z.infer<typeof CaseSummary>;

export const Case = CaseSummary.omit({ participants: true })
  .extend({
    summary: z.string().nullable(),
    originRef: z.string().nullable(),
    version: z.number().int().meta({ description: 'Rises with every change; a notice prepared at an older version cannot be confirmed.' }),
    reportIds: z.array(z.uuid()),
    participants: z.array(Participant),
    log: z.array(CaseEvent).meta({ description: 'The append-only case log, oldest first.' }),
    coordinatorSuggestedAt: Instant.nullable().meta({
      description:
        'When a participant stayed silent for two reminder periods and the case suggested bringing in a coordinator (GET /cases/{id}/coordinator-pack).',
    }),
  })
  .meta({ id: 'Case' });
export type CaseView = z.infer<typeof Case>;

export const Notice = z
  .object({
    id: z.uuid(),
    participantId: z.uuid(),
    channel: z.enum(CHANNELS),
    recipient: z.string(),
    subject: z.string(),
    body: z.string().meta({
      description:
        "Exactly the text that goes out (before encryption); a private link is made when the notice is confirmed. For the `github` channel, the JSON body posted to the repository's private vulnerability reporting.",
    }),
    sharedBody: z.string().nullable().meta({
      description: 'The whole notice, shown only behind the private link, when the channel does not carry it (e-mail without an OpenPGP key); null otherwise.',
    }),
    encrypted: z.boolean(),
    state: z.enum(['prepared', 'queued', 'sent', 'failed', 'superseded']).meta({
      description: 'prepared; queued (confirmed, a `github` notice waiting for the delivery job); sent; failed (see `failure`); superseded.',
    }),
    failure: z.string().nullable().meta({ description: 'Why the notice could not be delivered (state failed), or the last transient failure while queued.' }),
    attempts: z.number().int().meta({ description: 'Delivery attempts so far (`github` notices).' }),
    caseVersion: z.number().int(),
    preparedAt: Instant,
    sentAt: Instant.nullable(),
  })
  .meta({ id: 'CaseNotice' });
export type NoticeView = z.infer<typeof Notice>;

export const PrepareNoticesInput = z
  .object({
    participantIds: z
      .array(z.uuid())
      .min(1)
      .max(50)
      .optional()
      .meta({ description: 'Only these participants; default every participant not yet notified that has a channel.' }),
  })
  .strict()
  .meta({ id: 'PrepareCaseNoticesInput' });

export const ConfirmNoticesInput = z
  .object({ noticeIds: z.array(z.uuid()).min(1, 'name at least one prepared notice').max(50).meta({ description: 'The prepared notices to send, as shown.' }) })
  .strict()
  .meta({ id: 'ConfirmCaseNoticesInput' });

export const ProposeEmbargoInput = z.object({ until: Day }).strict().meta({ id: 'ProposeEmbargoInput' });
export const EndEmbargoInput = z
  .object({ reason: z.string().trim().min(1, 'give the reason the embargo ends early').max(2000) })
  .strict()
  .meta({ id: 'EndEmbargoInput' });

export const EmbargoResponseInput = z
  .object({
    response: z.enum(['accept', 'counter']),
    until: Day.optional().meta({ description: 'The day proposed instead; required with counter.' }),
  })
  .strict()
  .refine((v) => v.response === 'accept' || v.until !== undefined, { message: 'a counter-proposal needs a date (until)', path: ['until'] })
  .meta({ id: 'EmbargoResponseInput' });

/** The text of a message: may be left empty only when files are attached (the verb checks: checkMessageParts). */
const MessageBody = z
  .string()
  .trim()
  .max(MESSAGE_MAX, `body must be at most ${MESSAGE_MAX} characters`)
  .default('')
  .meta({ description: 'The message; may be empty only when files are attached.' });

export const CaseMessageInput = z
  .object({
    participantId: z.uuid().meta({ description: 'The participant whose shared thread this message joins.' }),
    body: MessageBody,
    attachments: AttachmentsInput,
  })
  .strict()
  .meta({ id: 'CaseMessageInput' });

export const CaseMessage = z
  .object({
    id: z.uuid(),
    participantId: z.uuid(),
    author: z.enum(['company', 'participant']).meta({ description: 'participant: written by the participant (untrusted text).' }),
    authorId: z.string().nullable(),
    body: z.string(),
    attachments: z.array(CaseAttachment).meta({ description: 'The files sent with the message (metadata; download each by id).' }),
    createdAt: Instant,
  })
  .meta({ id: 'CaseMessage' });
export type CaseMessageView = z.infer<typeof CaseMessage>;

/** What a participant sees: the thread shared with them and the embargo; nothing of other participants. */
export const SharedCase = z
  .object({
    participantId: z.uuid(),
    from: z.string().meta({ description: 'The name of the company coordinating the case.' }),
    title: z.string(),
    role: z.enum(PARTICIPANT_ROLES),
    status: z.enum(PARTICIPANT_STATUSES),
    acknowledgedAt: Instant.nullable(),
    embargo: Embargo,
    embargoResponse: z.enum(['pending', 'accepted', 'countered']),
    embargoCounterUntil: z.string().nullable(),
    notices: z.array(z.object({ subject: z.string(), body: z.string(), sentAt: Instant })),
    messages: z.array(CaseMessage),
    fixes: z.array(SharedFix).meta({ description: 'The fixes the company shares (CRA Article 13(6)); only an upstream maintainer sees them.' }),
    peerReportId: z.uuid().nullable().meta({ description: 'For a company on this instance: the report filed into its inbox.' }),
  })
  .meta({ id: 'SharedCase' });
export type SharedCaseView = z.infer<typeof SharedCase>;

export const SharedMessageInput = z.object({ body: MessageBody, attachments: AttachmentsInput }).strict().meta({ id: 'SharedCaseMessageInput' });
