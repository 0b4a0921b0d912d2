import type { Db } from '../../db/client.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';
import { authorize, type Plan } from '../../kernel/access.js';
import { getProductByIdentifier } from '../products/get-product.js';
import { ComplianceQuery } from './compliance.schemas.js';
import { type Evaluated, evaluateSnapshot } from './compliance-views.js';
import { readFacts } from './facts-cache.js';
import { type EvidenceSnapshot, snapshotAt } from './evidence-snapshot.js';
import { parseInput } from '../../kernel/validate.js';

/**
 * The plan each compliance read needs beyond API access itself (docs/compliance.md "Endpoints":
 * the Reporting plan or higher for next-task and next-deadline). The one place these rules live:
 * the verbs check them for every surface (REST, MCP, dashboard). Over the API the Enterprise rule
 * of the key check comes first, so there these only bite if that rule is ever relaxed; the
 * dashboard, open to every plan, is where a lower plan meets them.
 */
export const PLAN_RULES = { 'next-task': 'reporting', 'next-deadline': 'reporting' } as const satisfies Record<string, Plan>;
export type PlanGated = keyof typeof PLAN_RULES;

export const planAllows = (plan: Plan, feature: PlanGated): boolean => !authorize({ plan }, { minPlan: PLAN_RULES[feature] });

/** Refuses a plan below the feature's; 401 like the key check's plan refusal (docs/access.md "Authenticating a request"). */
export function assertPlan(plan: Plan, feature: PlanGated): void {
  if (!planAllows(plan, feature)) {
    throw new AppError(ErrorCode.UNAUTHENTICATED, `${feature} is available from the ${PLAN_RULES[feature]} plan upward; this company is on the ${plan} plan`);
  }
}

/**
 * Resolves `?product=` (404 for an identifier the company does not have) and takes the evidence
 * snapshot at `now`: facts from the cache while current (facts-cache.ts), the clock applied afresh.
 */
export async function snapshotFor(db: Db, companyId: string, query: unknown, now = new Date()): Promise<EvidenceSnapshot> {
  const { product } = parseInput(ComplianceQuery, query ?? {});
  const productId = product === undefined ? undefined : (await getProductByIdentifier(db, companyId, product)).id;
  return snapshotAt(await readFacts(db, companyId, productId), now);
}

/** Evidence gathered and evaluated: what every compliance read renders. */
export async function readCompliance(db: Db, companyId: string, query: unknown, now = new Date()): Promise<Evaluated> {
  return evaluateSnapshot(await snapshotFor(db, companyId, query, now));
}
