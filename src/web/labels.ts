import { NOT_AFFECTED_JUSTIFICATIONS } from '../modules/advisories/csaf.js';
import { ADVISORY_STATES, PRODUCT_DECISIONS, REMEDIATION_CATEGORIES } from '../modules/advisories/advisories.schemas.js';
import { STAGE_STATES, STAGES } from '../modules/article14/article14-clock.js';
import { CHANNELS, PARTICIPANT_ROLES, PARTICIPANT_STATUSES } from '../modules/cases/cases.schemas.js';
import { FIX_KINDS } from '../modules/cases/case-fixes.schemas.js';
import { ANALYSIS_STATES, JUSTIFICATIONS, RESPONSES } from '../modules/known-vulns/known-vulns.schemas.js';
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
