/**
 * The report lifecycle (issue 7; the states are our own: docs/workflow.md "Lifecycle"). One table
 * decides every transition, for every surface (REST PATCH, dashboard, MCP).
 *
 *   new -> triaging -> accepted -> fixing -> fixed -> disclosed
 *     \        \           \         \
 *      +--------+-----------+---------+--> closed as duplicate | not_applicable | spam | informative
 *
 * Closed outcomes can be reopened to `triaging` (a duplicate that was not, new evidence). A fixed
 * report can fall back to `fixing` (the fix failed). `disclosed` is final.
 */
export const REPORT_STATES = ['new', 'triaging', 'accepted', 'fixing', 'fixed', 'disclosed', 'duplicate', 'not_applicable', 'spam', 'informative'] as const;
export type ReportState = (typeof REPORT_STATES)[number];

export const CLOSED_STATES: readonly ReportState[] = ['duplicate', 'not_applicable', 'spam', 'informative'];
const CLOSE: ReportState[] = [...CLOSED_STATES];

export const TRANSITIONS: Readonly<Record<ReportState, readonly ReportState[]>> = {
  new: ['triaging', 'accepted', ...CLOSE],
  triaging: ['accepted', ...CLOSE],
  accepted: ['fixing', 'fixed', 'triaging', ...CLOSE],
  fixing: ['fixed', 'accepted'],
  fixed: ['disclosed', 'fixing'],
  disclosed: [],
  duplicate: ['triaging'],
  not_applicable: ['triaging'],
  spam: ['triaging'],
  informative: ['triaging'],
};

/** Human words for the researcher's status page: internal detail stays internal. */
export const PUBLIC_STATUS: Readonly<Record<ReportState, string>> = {
  new: 'received',
  triaging: 'under review',
  accepted: 'confirmed',
  fixing: 'confirmed, fix in progress',
  fixed: 'fixed',
  disclosed: 'fixed and disclosed',
  duplicate: 'closed: already reported',
  not_applicable: 'closed: not applicable',
  spam: 'closed',
  informative: 'closed: no security impact',
};

export const isReportState = (s: string): s is ReportState => (REPORT_STATES as readonly string[]).includes(s);

export const canTransition = (from: ReportState, to: ReportState): boolean => TRANSITIONS[from].includes(to);

/** Why a transition is refused, in words for the problem detail; undefined when it is allowed. */
export function transitionRefusal(from: ReportState, to: ReportState, duplicateOf: string | null): string | undefined {
  if (from === to) return `the report is already ${to}`;
  if (!canTransition(from, to)) {
    const allowed = TRANSITIONS[from];
    return allowed.length === 0
      ? `a ${from} report is final and cannot change state`
      : `cannot move a report from ${from} to ${to}; from ${from} it can go to: ${allowed.join(', ')}`;
  }
  if (to === 'duplicate' && !duplicateOf) return 'closing as duplicate needs duplicateOf: the id of the original report';
  return undefined;
}
