import { requirementById } from './catalog.js';
import { PRODUCTS_REGISTERED } from './company-level.js';
import type { Assessment } from './evaluate.js';

/**
 * The order in which open requirements matter most: legal clocks and live exploitation first (fines
 * up to EUR 15 million, Art. 64), then the researcher channel the law demands today, then the
 * evidence pipeline, then attestations. Requirements not listed come last, in catalog order.
 */
const PRIORITY = [
  'cra-art14-reporting',
  // With no product nothing else can be judged: register one first (issue 20), after an overdue legal clock.
  PRODUCTS_REGISTERED.id,
  'cra-ai-p1-2a',
  'cra-art13-17-contact',
  'cra-ai-p2-6',
  'cra-ai-p2-5',
  'cra-ai-p2-2',
  'cra-ai-p2-1',
  'cra-ai-p2-3',
  'cra-art13-8-support',
  'cra-ai-p2-4',
  'cra-art13-5-components',
  'cra-aii-7-support-end',
  'cra-aii-2-contact',
];
const rank = (id: string) => {
  const i = PRIORITY.indexOf(id);
  return i >= 0 ? i : PRIORITY.length + [...requirementById.keys()].indexOf(id);
};

export type NextTask = {
  requirementId: string;
  title: string;
  reference: string;
  productIds: string[];
  action: string;
  why: string;
  /** How many open requirement-product pairs remain after this one. */
  remaining: number;
};

/** The single most valuable action: gaps before unassessed ones, then by PRIORITY; null when all is done. */
export function nextTask(assessments: readonly Assessment[]): NextTask | null {
  const open = assessments.filter((a) => a.verdict === 'gap' || a.verdict === 'not_assessed');
  if (open.length === 0) return null;
  const sorted = [...open].sort((a, b) => Number(a.verdict !== 'gap') - Number(b.verdict !== 'gap') || rank(a.requirementId) - rank(b.requirementId));
  const top = sorted[0] as Assessment;
  const same = open.filter((a) => a.requirementId === top.requirementId && a.verdict === top.verdict);
  const req = requirementById.get(top.requirementId) ?? (top.requirementId === PRODUCTS_REGISTERED.id ? PRODUCTS_REGISTERED : undefined);
  return {
    requirementId: top.requirementId,
    title: req?.title ?? top.requirementId,
    reference: req?.reference ?? '',
    productIds: same.flatMap((a) => (a.productId ? [a.productId] : [])),
    action: top.action ?? req?.action ?? '',
    why: top.verdict === 'gap' ? `gap: ${top.reason}` : `not yet assessed: ${top.reason}`,
    remaining: open.length - same.length,
  };
}

export type DeadlineKind = 'article14_stage' | 'cra_full_application' | 'security_txt_expiry' | 'support_period_end' | 'attestation_expiry';
export type Deadline = { kind: DeadlineKind; at: Date; what: string; reportId?: string; productId?: string; requirementId?: string };

/** The CRA applies in full from this day (Art. 71(2)). */
export const CRA_FULL_APPLICATION = new Date('2027-12-11T00:00:00Z');

/**
 * The deadlines still to be met, soonest first. Overdue Article 14 stages count (they are the most
 * urgent thing there is); other past dates are history and are skipped.
 */
export function upcomingDeadlines(candidates: readonly Deadline[], now: Date): (Deadline & { overdue: boolean })[] {
  const live = candidates.filter((d) => d.kind === 'article14_stage' || d.at.getTime() >= now.getTime());
  const all = [
    ...live,
    ...(CRA_FULL_APPLICATION > now
      ? [
          {
            kind: 'cra_full_application' as const,
            at: CRA_FULL_APPLICATION,
            what: 'the Cyber Resilience Act applies in full (Annex I, conformity assessment, CE marking)',
          },
        ]
      : []),
  ];
  return all.sort((a, b) => a.at.getTime() - b.at.getTime()).map((d) => ({ ...d, overdue: d.at.getTime() < now.getTime() }));
}

/** The soonest deadline still to be met (see upcomingDeadlines). */
export function nextDeadline(candidates: readonly Deadline[], now: Date): (Deadline & { overdue: boolean }) | null {
  return upcomingDeadlines(candidates, now)[0] ?? null;
}
