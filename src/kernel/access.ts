import { z } from 'zod';

/**
 * The access vocabulary every layer shares (docs/access.md): the plans a company is on, the scopes
 * an API key holds and the roles of a company's members. The database schema's column enums and
 * the modules' schemas are built from these lists, so each is written once.
 */

/** Subscription plans, lowest first. */
export const PLANS = ['free', 'reporting', 'enterprise'] as const;
export const Plan = z.enum(PLANS).meta({
  description: 'Subscription plan, lowest first: free, reporting, enterprise.',
});
export type Plan = z.infer<typeof Plan>;
export const PLAN_ORDER: readonly Plan[] = PLANS;
export const planAtLeast = (plan: Plan, min: Plan): boolean => PLAN_ORDER.indexOf(plan) >= PLAN_ORDER.indexOf(min);
/** The highest plan: what the first company of a new instance is given unless the set-up form says otherwise. */
export const HIGHEST_PLAN: Plan = PLANS[PLANS.length - 1] as Plan;
/**
 * The lowest plan whose keys may call an operation that names none: API access needs the Enterprise
 * plan (docs/access.md "API keys"); a few operations name a lower one.
 */
export const API_PLAN: Plan = 'enterprise';

/** The scopes of docs/access.md "Scopes": the seven first ones, then `triage:write` and `portal:write` (issue 20). */
export const SCOPES = [
  'read',
  'submissions:write',
  'products:write',
  'sbom:write',
  'sarif:write',
  'webhooks:write',
  'gdpr:export',
  'triage:write',
  'portal:write',
] as const;
export const Scope = z.enum(SCOPES).meta({ id: 'Scope' });
export type Scope = z.infer<typeof Scope>;

/** The roles of a company's members (what each may do: src/modules/users/roles.ts). */
export const ROLES = ['admin', 'psirt', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
