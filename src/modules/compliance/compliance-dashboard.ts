import type { z } from 'zod';
import type { Db } from '../../db/client.js';
import type { Plan } from '../companies/companies.schemas.js';
import { listAttestations } from './attestations.js';
import type { Assessments, AttestationView, ComplianceStatus, NextDeadlineBody, NextTaskBody, ProductCraFacts } from './compliance.schemas.js';
import { assessmentsView, evaluateSnapshot, nextDeadlineView, nextTaskView, statusView } from './compliance-views.js';
import { getProductCraFacts } from './product-cra-facts.js';
import { planAllows, snapshotFor } from './read-compliance.js';

/** Everything the dashboard's compliance page shows, from one evidence snapshot. */
export type ComplianceView = {
  plan: Plan;
  status: z.infer<typeof ComplianceStatus>;
  assessments: z.infer<typeof Assessments>;
  attestations: AttestationView[];
  facts: ProductCraFacts | undefined;
  /** Null below the plan the next task and deadline need (PLAN_RULES). */
  next: { task: z.infer<typeof NextTaskBody>['task']; deadline: z.infer<typeof NextDeadlineBody>['deadline']; upcoming: z.infer<typeof NextDeadlineBody>['upcoming'] } | null;
  formErrors?: Record<string, string>;
};

/** The page's data for the whole company, or for one product (`identifier`; unknown -> NOT_FOUND). */
export async function complianceView(db: Db, companyId: string, identifier?: string): Promise<ComplianceView> {
  const snapshot = await snapshotFor(db, companyId, identifier === undefined ? {} : { product: identifier });
  const e = evaluateSnapshot(snapshot);
  const gated = planAllows(snapshot.plan, 'next-task') && planAllows(snapshot.plan, 'next-deadline');
  const d = nextDeadlineView(snapshot);
  return {
    plan: snapshot.plan,
    status: statusView(e),
    assessments: assessmentsView(e),
    attestations: await listAttestations(db, companyId),
    facts: identifier === undefined ? undefined : await getProductCraFacts(db, companyId, identifier),
    next: gated ? { task: nextTaskView(e).task, deadline: d.deadline, upcoming: d.upcoming } : null,
  };
}
