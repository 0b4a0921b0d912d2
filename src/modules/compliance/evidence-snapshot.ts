import { type Article14Facts, article14Status, type Stage } from '../article14/article14-clock.js';
import type { Attestation, CompanyEvidence, ProductEvidence } from './evidence.js';
import type { Plan } from '../../kernel/access.js';

// The clock's half of the evidence: the facts gather-evidence.ts reads from the database hold
// nothing derived from the time, and `snapshotAt` turns them into what is overdue at one moment.

/** Reports waiting for triage longer than this are a gap (catalog: Annex I Part II (2)). */
export const ACK_TARGET_DAYS = 7;
const DAY = 86_400_000;

/** An Article 14 stage that still has to be filed, for the deadline view. */
export type OpenStage = { reportId: string; stage: Stage; dueAt: Date };

/**
 * What the database holds for one company's compliance, with nothing derived from the clock: the
 * same rows give the same facts at any time, so facts can be cached for as long as the company's
 * compliance data version stays (ADR 0012). `snapshotAt` turns them into a snapshot at a moment.
 */
export type EvidenceFacts = {
  plan: EvidenceSnapshot['plan'];
  policyPublished: boolean;
  securityEmail: string | null;
  products: ProductEvidence[];
  /** When each report still waiting for triage arrived, in ms since the epoch, ascending. */
  untriagedSince: Float64Array;
  /** Reports Article 14 may apply to (actively exploited or a severe incident), with their filings. */
  notifiable: NotifiableRow[];
  filings: { reportId: string; stage: string; filedAt: Date }[];
  attestations: Attestation[];
};

/** What the evaluator reads: the facts as of one moment, plus the facts the deadline view needs. */
export type EvidenceSnapshot = {
  evidence: CompanyEvidence;
  plan: Plan;
  openStages: OpenStage[];
  takenAt: Date;
};

/** How many of the ascending times are before `t`. */
function countBefore(times: Float64Array, t: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((times[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The facts as of `now`: what is overdue by then (triage, Article 14 stages). Pure. */
export function snapshotAt(facts: EvidenceFacts, now: Date): EvidenceSnapshot {
  const { overdue, filedLate, openStages } = article14Summary(facts.notifiable, facts.filings, now);
  return {
    plan: facts.plan,
    takenAt: now,
    openStages,
    evidence: {
      policyPublished: facts.policyPublished,
      securityEmail: facts.securityEmail,
      untriagedOverdue: countBefore(facts.untriagedSince, now.getTime() - ACK_TARGET_DAYS * DAY),
      untriagedTotal: facts.untriagedSince.length,
      article14Overdue: overdue,
      article14FiledLate: filedLate,
      attestations: facts.attestations,
      products: facts.products,
    },
  };
}

/** A report Article 14 may apply to, with the facts of its clock (its filings are listed apart). */
type NotifiableRow = Omit<Article14Facts, 'filings'> & { id: string };

function article14Summary(rows: NotifiableRow[], filings: { reportId: string; stage: string; filedAt: Date }[], now: Date) {
  let overdue = 0;
  let filedLate = 0;
  const openStages: OpenStage[] = [];
  const filed = new Map<string, Article14Facts['filings']>();
  for (const f of filings) filed.set(f.reportId, { ...filed.get(f.reportId), [f.stage]: { filedAt: f.filedAt } });
  for (const r of rows) {
    const status = article14Status({ ...r, filings: filed.get(r.id) ?? {} }, now);
    for (const s of status.stages) {
      if (s.state === 'overdue') overdue++;
      if (s.state === 'filed_late') filedLate++;
      if (s.dueAt && (s.state === 'open' || s.state === 'due_soon' || s.state === 'overdue'))
        openStages.push({ reportId: r.id, stage: s.stage, dueAt: new Date(s.dueAt) });
    }
  }
  return { overdue, filedLate, openStages };
}
