import { NOT_AFFECTED_JUSTIFICATIONS } from '../modules/advisories/csaf.js';
import { ADVISORY_STATES, PRODUCT_DECISIONS, REMEDIATION_CATEGORIES } from '../modules/advisories/advisories.schemas.js';
import { STAGE_STATES, STAGES } from '../modules/article14/article14-clock.js';
import { CASE_EVENT_KINDS, CaseSummary, CHANNELS, Participant, PARTICIPANT_ROLES, PARTICIPANT_STATUSES } from '../modules/cases/cases.schemas.js';
import { Category, Verdict } from '../modules/compliance/compliance.schemas.js';
import { AUDIT_ACTOR_TYPES, AUDIT_OUTCOMES } from '../modules/audit/list-audit.js';
import { FindingState } from '../modules/findings/findings.schemas.js';
import { SEVERITIES } from '../modules/findings/findings.severity.js';
import { KEY_STATUSES } from '../modules/keys/keys.schemas.js';
import { MAIL_KINDS, MAIL_STATES, TEAM_MAIL_LABELS } from '../modules/mail/mail-kinds.js';
import { ErasureRequest, LegalHold, RuleOutcome } from '../modules/retention/retention.schemas.js';
import { Sbom } from '../modules/sboms/sboms.schemas.js';
import { UPSTREAM_SOURCE_KINDS, UpstreamContact, UpstreamSourceAttempt } from '../modules/upstream/upstream.schemas.js';
import { Delivery } from '../modules/webhooks/webhooks.schemas.js';
import { FIX_KINDS } from '../modules/cases/case-fixes.schemas.js';
import { ANALYSIS_STATES, JUSTIFICATIONS, RESPONSES } from '../modules/known-vulns/known-vulns.schemas.js';
import { PLANS } from '../kernel/access.js';
import { CVSS_SEVERITIES } from '../modules/reports/cvss.js';
import { REPORT_STATES } from '../modules/reports/lifecycle.js';
import { SUGGESTION_DECISIONS } from '../modules/triage/triage-suggestions.js';
import { REPORT_SOURCES, VULNERABILITY_TYPE_INFO, VULNERABILITY_TYPES } from '../modules/reports/reports.schemas.js';

/**
 * The words people read for the enumerated values the pages show (the API keeps the values). One
 * table per enumeration, typed by its values so that a value added to a schema without its label
 * fails to compile; `test/web/labels.test.ts` walks every value through `label`.
 */
type Table<V extends string> = { readonly values: readonly V[]; readonly labels: Readonly<Record<V, string>> };
const table = <V extends string>(values: readonly V[], labels: Record<V, string>): Table<V> => ({ values, labels });

export const LABELS = {
  vulnerabilityType: table(
    VULNERABILITY_TYPES,
    Object.fromEntries(VULNERABILITY_TYPES.map((t) => [t, VULNERABILITY_TYPE_INFO[t].label])) as Record<(typeof VULNERABILITY_TYPES)[number], string>,
  ),
  reportSource: table(REPORT_SOURCES, {
    portal_form: "the portal's report form",
    bulk: 'the bulk reporting endpoint',
    api: 'the API',
    mcp: 'the MCP server',
    dashboard: 'the dashboard',
    coordination: 'a coordination case',
  }),
  reportState: table(REPORT_STATES, {
    new: 'new',
    triaging: 'in triage',
    accepted: 'accepted',
    fixing: 'fix in progress',
    fixed: 'fixed',
    disclosed: 'disclosed',
    duplicate: 'duplicate',
    not_applicable: 'not applicable',
    spam: 'spam',
    informative: 'informative',
  }),
  severity: table(CVSS_SEVERITIES, { none: 'none', low: 'low', medium: 'medium', high: 'high', critical: 'critical' }),
  suggestionDecision: table(SUGGESTION_DECISIONS, { pending: 'pending', accepted: 'accepted', dismissed: 'dismissed' }),
  article14Stage: table(STAGES, { early_warning: 'early warning', notification: 'notification', final_report: 'final report' }),
  article14StageState: table(STAGE_STATES, {
    awaiting_anchor: 'not started yet',
    open: 'open',
    due_soon: 'due soon',
    overdue: 'overdue',
    filed: 'filed',
    filed_late: 'filed late',
  }),
  advisoryState: table(ADVISORY_STATES, { draft: 'draft', published: 'published', withdrawn: 'withdrawn' }),
  productDecision: table(PRODUCT_DECISIONS, {
    known_affected: 'affected',
    fixed: 'fixed',
    not_affected: 'not affected',
    under_investigation: 'under investigation',
  }),
  remediationCategory: table(REMEDIATION_CATEGORIES, {
    vendor_fix: 'Fix from the vendor',
    mitigation: 'Mitigation',
    workaround: 'Workaround',
    none_available: 'No fix available',
    no_fix_planned: 'No fix planned',
  }),
  notAffectedJustification: table(NOT_AFFECTED_JUSTIFICATIONS, {
    component_not_present: 'the component is not present',
    vulnerable_code_not_present: 'the vulnerable code is not present',
    vulnerable_code_cannot_be_controlled_by_adversary: 'the vulnerable code cannot be controlled by an attacker',
    vulnerable_code_not_in_execute_path: 'the vulnerable code is never run',
    inline_mitigations_already_exist: 'mitigations already exist in the product',
  }),
  analysisState: table(ANALYSIS_STATES, {
    in_triage: 'in triage',
    exploitable: 'exploitable',
    not_affected: 'not affected',
    false_positive: 'false positive',
    resolved: 'resolved',
  }),
  analysisJustification: table(JUSTIFICATIONS, {
    code_not_present: 'the code is not present',
    code_not_reachable: 'the code is not reachable',
    requires_configuration: 'needs a configuration not used',
    requires_dependency: 'needs a dependency not present',
    requires_environment: 'needs an environment not used',
    protected_by_compiler: 'protected by the compiler',
    protected_at_runtime: 'protected at run time',
    protected_at_perimeter: 'protected at the perimeter',
    protected_by_mitigating_control: 'protected by a mitigating control',
  }),
  analysisResponse: table(RESPONSES, {
    can_not_fix: 'cannot be fixed',
    will_not_fix: 'will not be fixed',
    update: 'update',
    rollback: 'roll back',
    workaround_available: 'workaround available',
  }),
  participantRole: table(PARTICIPANT_ROLES, {
    finder: 'finder',
    vendor: 'vendor',
    upstream_maintainer: 'upstream maintainer',
    other_vendor: 'other vendor',
    coordinator: 'coordinator',
    deployer: 'deployer',
  }),
  participantStatus: table(PARTICIPANT_STATUSES, {
    not_contacted: 'not contacted',
    contact_attempted: 'contact attempted',
    open: 'open',
    in_progress: 'in progress',
    completed: 'completed',
    disputed: 'disputed',
  }),
  channel: table(CHANNELS, { cradle: 'Cradle', email: 'e-mail', github: 'GitHub', none: 'none' }),
  fixKind: table(FIX_KINDS, { patch: 'patch (unified diff)', description: 'fix description' }),
  plan: table(PLANS, { free: 'Free', reporting: 'Reporting', enterprise: 'Enterprise' }),
  productCategory: table(Category.options, {
    default: 'Default (self-assessment, module A)',
    important_i: 'Important, class I (Annex III)',
    important_ii: 'Important, class II (Annex III)',
    critical: 'Critical (Annex IV)',
  }),
  complianceVerdict: table(Verdict.options, { met: 'met', gap: 'gap', not_applicable: 'not applicable', not_assessed: 'not assessed' }),
  caseOrigin: table(CaseSummary.shape.origin.options, {
    report: 'a report',
    known_vulnerability: 'a known-vulnerability match',
    scratch: 'opened from scratch',
  }),
  caseEvent: table(CASE_EVENT_KINDS, {
    opened: 'case opened',
    participant_added: 'participant added',
    notice_prepared: 'notices prepared',
    notice_queued: 'notice queued for GitHub',
    notice_sent: 'notice sent',
    notice_failed: 'notice not delivered',
    status_changed: 'status read back from GitHub',
    acknowledged: 'notice acknowledged',
    embargo_proposed: 'embargo proposed',
    embargo_accepted: 'embargo accepted',
    embargo_countered: 'other embargo day proposed',
    embargo_ended: 'embargo ended',
    message: 'message',
    participant_updated: 'participant status recorded',
    reminder_sent: 'reminder sent',
    coordinator_suggested: 'coordinator suggested',
    fix_added: 'fix added',
  }),
  embargoResponse: table(Participant.shape.embargoResponse.options, { pending: 'no answer yet', accepted: 'accepted', countered: 'proposes another day' }),
  upstreamSource: table(UPSTREAM_SOURCE_KINDS, {
    github_pvr: 'GitHub private vulnerability reporting',
    security_txt: 'security.txt',
    security_md: 'SECURITY.md',
    security_insights: 'security-insights.yml',
    cradle_declaration: 'A company on this Cradle instance',
  }),
  upstreamOutcome: table(UpstreamSourceAttempt.shape.outcome.options, { found: 'found', not_found: 'nothing found', failed: 'failed', skipped: 'skipped' }),
  upstreamChannel: table(UpstreamContact.shape.channel.options, {
    github: 'GitHub private vulnerability reporting',
    email: 'e-mail',
    cradle: 'Cradle (this instance)',
    url: 'web page',
  }),
  sbomFormat: table(Sbom.shape.format.options, { cyclonedx: 'CycloneDX', spdx: 'SPDX' }),
  findingSeverity: table(SEVERITIES, { critical: 'critical', high: 'high', medium: 'medium', low: 'low', info: 'information' }),
  findingState: table(FindingState.options, { open: 'open', fixed: 'fixed' }),
  retentionRule: table(RuleOutcome.shape.rule.options, {
    reporter_data: "Researchers' personal data on closed reports: pseudonymised",
    rejected_bodies: 'Text of reports closed as spam or not applicable: removed',
    access_records: 'Ended sessions deleted; client address and browser string of audit rows cleared',
  }),
  holdScope: table(LegalHold.shape.scope.options, { company: 'the whole company', product: 'product', report: 'report' }),
  erasureChannel: table(ErasureRequest.shape.channel.options, {
    researcher: 'the researcher, through the status link',
    administrator: 'recorded by an administrator',
  }),
  apiKeyStatus: table(KEY_STATUSES, { active: 'active', expired: 'expired', suspended: 'suspended' }),
  webhookDeliveryState: table(Delivery.shape.state.options, {
    pending: 'waiting or retrying',
    succeeded: 'delivered',
    dead: 'given up',
    cancelled: 'cancelled',
  }),
  auditOutcome: table(AUDIT_OUTCOMES, { success: 'done', denied: 'refused', failure: 'failed' }),
  auditActor: table(AUDIT_ACTOR_TYPES, { user: 'a member', api_key: 'an API key', operator: 'Cradle operator', public: 'Public (portal)', system: 'Cradle' }),
  mailState: table(MAIL_STATES, {
    pending: 'waiting or retrying',
    sent: 'sent',
    dead: 'given up (dead-lettered)',
    suppressed: 'held back (recipient limit or unsubscribed)',
    folded: 'folded into a digest (new reports past the recipient limit)',
  }),
  /** A digest of new-report notices is a mail row too; its states read from the team's side. */
  digestState: table(MAIL_STATES, { pending: 'due', sent: 'sent', dead: 'given up', suppressed: 'held back', folded: 'folded' }),
  mailKind: table(MAIL_KINDS, {
    ...TEAM_MAIL_LABELS,
    'researcher.ack': 'Researcher: receipt of their report',
    'researcher.status': "Researcher: their report's status changed",
    'researcher.message': 'Researcher: a reply in the thread',
    'researcher.erasure': 'Researcher: their personal data was erased',
    'team.invitation': 'Invitation to join the team',
    'report.digest': 'Digest of new reports past the recipient limit',
    'account.security_notice': "Security notice about a member's sign-in",
    'case.notice': 'Coordination notice to a case participant',
  }),
} as const;

export type LabelKind = keyof typeof LABELS;

/**
 * The label of one value; a value the table does not know (a stored value from an older release) is
 * shown in words rather than as its identifier.
 */
export function label(kind: LabelKind, value: string | null | undefined): string {
  if (value === null || value === undefined) return '';
  const labels = LABELS[kind].labels as Readonly<Record<string, string>>;
  return Object.hasOwn(labels, value) ? (labels[value] as string) : value.replaceAll('_', ' ');
}
