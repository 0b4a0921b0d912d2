/**
 * Every kind of mail Cradle sends. Team kinds follow each member's choice (`mail_preferences`),
 * else the default of their role; researcher kinds follow the opt-in on the report form.
 */
export const TEAM_MAIL_KINDS = [
  'report.new',
  'report.message',
  'report.response_overdue',
  'article14.approaching',
  'article14.overdue',
  'vulnerability.kev',
  'webhook.dead_lettered',
  'api_key.expiring',
  'case.update',
] as const;
export const RESEARCHER_MAIL_KINDS = ['researcher.ack', 'researcher.status', 'researcher.message'] as const;

/**
 * The one notice to a researcher who asked for erasure (docs/retention.md "Erasure"), sent only to an
 * address they had confirmed: no preference applies, no link, and once it is finished its row keeps
 * no address (`finishedRecipient` in mail-queue.ts).
 */
export const ERASURE_MAIL_KIND = 'researcher.erasure';

/** Mail to someone who is not a member yet (an invitation): no preference applies, nothing to unsubscribe from. */
export const INVITEE_MAIL_KINDS = ['team.invitation'] as const;

/**
 * The hour's new-report notices past the per-recipient cap, counted in one mail (issue 32): a team
 * mail with no preference of its own (it carries only notices the member chose to get).
 */
export const DIGEST_MAIL_KIND = 'report.digest';

/**
 * Security notices to a member about a change of their own account's sign-in (issue 32, finding 2):
 * no preference applies and no link stops them; they tell the owner of a stolen session what it did.
 */
export const ACCOUNT_MAIL_KINDS = ['account.security_notice'] as const;

/**
 * A coordination notice to a case participant outside the company (issue 34): its subject and text
 * are fixed when a PSIRT member confirms it (already encrypted when a key is known); no preference applies.
 */
export const PARTICIPANT_MAIL_KINDS = ['case.notice'] as const;

export type TeamMailKind = (typeof TEAM_MAIL_KINDS)[number];
export type ResearcherMailKind = (typeof RESEARCHER_MAIL_KINDS)[number];
export type InviteeMailKind = (typeof INVITEE_MAIL_KINDS)[number];
export type AccountMailKind = (typeof ACCOUNT_MAIL_KINDS)[number];
export type ParticipantMailKind = (typeof PARTICIPANT_MAIL_KINDS)[number];
export type MailKind =
  TeamMailKind | ResearcherMailKind | InviteeMailKind | AccountMailKind | ParticipantMailKind | typeof DIGEST_MAIL_KIND | typeof ERASURE_MAIL_KIND;

/** Every kind, for the pages that name a mail's kind in words (src/web/labels.ts). */
export const MAIL_KINDS: readonly MailKind[] = [
  ...TEAM_MAIL_KINDS,
  ...RESEARCHER_MAIL_KINDS,
  ERASURE_MAIL_KIND,
  ...INVITEE_MAIL_KINDS,
  DIGEST_MAIL_KIND,
  ...ACCOUNT_MAIL_KINDS,
  ...PARTICIPANT_MAIL_KINDS,
];

/** A mail row's states (`mail_messages.state`): queued or retrying, sent, given up, held back, folded into a digest. */
export const MAIL_STATES = ['pending', 'sent', 'dead', 'suppressed', 'folded'] as const;

/**
 * How MAIL_MAX_PER_RECIPIENT_PER_HOUR treats a kind (issue 32, finding 1: one cap over every kind
 * let an anonymous flood silence the legal clocks):
 * - `always`: a legal clock (Article 14), an exploited vulnerability (KEV), the team's own security
 *   notices (an API key expiring, a change to a member's sign-in) and the digest itself: never held back, and not counted, so no
 *   flood of other mail can use their room;
 * - `digest`: a new-report notice past the cap is folded into the digest sent when the clock hour
 *   ends (src/modules/mail/mail-digest.ts);
 * - `capped`: everything else past the cap is held back (researcher mail, invitations, researcher
 *   messages, dead-lettered webhooks).
 */
export type MailBudget = 'always' | 'digest' | 'capped';
const ALWAYS: ReadonlySet<MailKind> = new Set<MailKind>([
  'article14.approaching',
  'article14.overdue',
  'vulnerability.kev',
  'api_key.expiring',
  'account.security_notice',
  DIGEST_MAIL_KIND,
]);
export const UNCAPPED_MAIL_KINDS: readonly MailKind[] = [...ALWAYS];

export const mailBudget = (kind: MailKind): MailBudget => (ALWAYS.has(kind) ? 'always' : kind === 'report.new' ? 'digest' : 'capped');

export const TEAM_MAIL_LABELS: Record<TeamMailKind, string> = {
  'report.new': 'A new vulnerability report arrives',
  'report.message': 'A researcher writes in a report thread',
  'report.response_overdue': 'A report passes the acknowledgement or assessment time promised on the portal',
  'article14.approaching': 'An Article 14 deadline is approaching',
  'article14.overdue': 'An Article 14 deadline has passed',
  'vulnerability.kev': 'A known exploited vulnerability (CISA KEV) is found in a product: an awareness decision waits',
  'webhook.dead_lettered': 'A webhook delivery was given up (dead-lettered)',
  'api_key.expiring': 'An API key expires within 7 days',
  'case.update': 'A case participant acknowledges a notice or answers the embargo',
};

/**
 * Issue 21: administrators and PSIRT members get new reports, messages and Article 14 deadlines;
 * a KEV match too, since it may start an Article 14 clock (issue 25).
 */
const ON_BY_DEFAULT: ReadonlySet<TeamMailKind> = new Set([
  'report.new',
  'report.message',
  'report.response_overdue',
  'article14.approaching',
  'article14.overdue',
  'vulnerability.kev',
  'case.update',
]);

/** Viewers (auditors, compliance officers) get no mail unless they choose some. */
export function teamMailDefault(kind: TeamMailKind, role: string): boolean {
  // Keys are the administrators' to renew: only they hear of an expiry by default.
  if (kind === 'api_key.expiring') return role === 'admin';
  return (role === 'admin' || role === 'psirt') && ON_BY_DEFAULT.has(kind);
}

export const isTeamMailKind = (k: string): k is TeamMailKind => (TEAM_MAIL_KINDS as readonly string[]).includes(k);
export const isResearcherMailKind = (k: string): k is ResearcherMailKind => (RESEARCHER_MAIL_KINDS as readonly string[]).includes(k);
export const isInviteeMailKind = (k: string): k is InviteeMailKind => (INVITEE_MAIL_KINDS as readonly string[]).includes(k);
export const isAccountMailKind = (k: string): k is AccountMailKind => (ACCOUNT_MAIL_KINDS as readonly string[]).includes(k);
export const isParticipantMailKind = (k: string): k is ParticipantMailKind => (PARTICIPANT_MAIL_KINDS as readonly string[]).includes(k);
