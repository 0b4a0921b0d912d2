import type { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Plan } from '../companies/companies.schemas.js';
import { listAttestations } from './attestations.js';
import type { Assessments, AttestationView, ComplianceGaps, ComplianceStatus, NextDeadlineBody, NextTaskBody, ProductCraFacts } from './compliance.schemas.js';
import { COMPANY_LEVEL_REQUIREMENTS } from './company-level.js';
import { assessmentsView, evaluateSnapshot, gapsView, nextDeadlineView, nextTaskView, statusView } from './compliance-views.js';
import { getProductCraFacts } from './product-cra-facts.js';
import { planAllows, snapshotFor } from './read-compliance.js';

/** Everything the dashboard's compliance page shows, from one evidence snapshot. */
export type ComplianceView = {
  plan: Plan;
  status: z.infer<typeof ComplianceStatus>;
  assessments: z.infer<typeof Assessments>;
  attestations: AttestationView[];
  /** The company's own open items (policy, contact, products, triage, Article 14), each once, with the page that closes it. */
  companyGaps: z.infer<typeof ComplianceGaps>['gaps'];
  facts: ProductCraFacts | undefined;
  /** Null below the plan the next task and deadline need (PLAN_RULES). */
  next: {
    task: z.infer<typeof NextTaskBody>['task'];
    deadline: z.infer<typeof NextDeadlineBody>['deadline'];
    upcoming: z.infer<typeof NextDeadlineBody>['upcoming'];
  } | null;
  formErrors?: Record<string, string>;
  /** A refused attestation's fields as typed, shown again in the form. */
  formValues?: Record<string, string>;
};

type Snapshot = Awaited<ReturnType<typeof snapshotFor>>;

/** The next task and deadline of an evaluated snapshot, or null below the plan they need. */
function nextOf(snapshot: Snapshot, e: ReturnType<typeof evaluateSnapshot>): ComplianceView['next'] {
  if (!(planAllows(snapshot.plan, 'next-task') && planAllows(snapshot.plan, 'next-deadline'))) return null;
  const d = nextDeadlineView(snapshot);
  return { task: nextTaskView(e).task, deadline: d.deadline, upcoming: d.upcoming };
}

/** What the dashboard's overview says comes next for the whole company (the compliance page's "What next"). */
export async function whatNext(db: Db, companyId: string): Promise<Pick<ComplianceView, 'plan' | 'next'>> {
  const snapshot = await snapshotFor(db, companyId, {});
  return { plan: snapshot.plan, next: nextOf(snapshot, evaluateSnapshot(snapshot)) };
}

/** The page's data for the whole company, or for one product (`identifier`; unknown -> NOT_FOUND). */
export async function complianceView(db: Db, companyId: string, identifier?: string): Promise<ComplianceView> {
  const snapshot = await snapshotFor(db, companyId, identifier === undefined ? {} : { product: identifier });
  const e = evaluateSnapshot(snapshot);
  return {
    plan: snapshot.plan,
    status: statusView(e),
    assessments: assessmentsView(e),
    companyGaps: companyGaps(gapsView(e).gaps),
    attestations: await listAttestations(db, companyId),
    facts: identifier === undefined ? undefined : await getProductCraFacts(db, companyId, identifier),
    next: nextOf(snapshot, e),
  };
}

const COMPANY_LEVEL = new Set<string>(COMPANY_LEVEL_REQUIREMENTS);
/** Company-level gaps once each (with products they repeat per product; with none they carry no product). */
function companyGaps(gaps: z.infer<typeof ComplianceGaps>['gaps']): z.infer<typeof ComplianceGaps>['gaps'] {
  const seen = new Set<string>();
  return gaps.filter((g) => (g.product === null || COMPANY_LEVEL.has(g.requirementId)) && !seen.has(g.requirementId) && seen.add(g.requirementId));
}
