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

/** The scopes of docs/access.md "Scopes": the seven first ones, then `triage:write`, `portal:write` (issue 20), `upstream:write` (issue 34) and `retention:write` (issue 35). */
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
  'upstream:write',
  'retention:write',
] as const;
export const Scope = z.enum(SCOPES).meta({ id: 'Scope' });
export type Scope = z.infer<typeof Scope>;

/** The roles of a company's members (what each may do: src/modules/users/roles.ts). */
export const ROLES = ['admin', 'psirt', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a signed-in person's route needs. `read`: the company's records; `read-admin`: the settings,
 * keys, team and audit pages (an auditor reads them, a PSIRT member does not); `triage`: changing
 * the vulnerability work; `admin`: changing settings, keys, webhooks and the team; `self`: the
 * signed-in person's own account (password, sessions, second factor, e-mail choices).
 */
export const ACCESS_LEVELS = ['read', 'read-admin', 'triage', 'admin', 'self'] as const;
export type Access = (typeof ACCESS_LEVELS)[number];

const GRANTS: Record<Access, readonly Role[]> = {
  read: ['admin', 'psirt', 'viewer'],
  'read-admin': ['admin', 'viewer'],
  triage: ['admin', 'psirt'],
  admin: ['admin'],
  self: ['admin', 'psirt', 'viewer'],
};

/**
 * The member's access level an operation needs when it names none, by its key scope: reading is
 * everyone's, the vulnerability work is triage, and what changes the company's settings (webhooks,
 * portal, upstream token, retention) or takes all its data is an administrator's (docs/access.md
 * "Team and roles"). An operation whose member rule differs names its own `access`.
 */
export const SCOPE_ACCESS: Readonly<Record<Scope, Access>> = {
  read: 'read',
  'submissions:write': 'triage',
  'products:write': 'triage',
  'sbom:write': 'triage',
  'sarif:write': 'triage',
  'webhooks:write': 'admin',
  'gdpr:export': 'admin',
  'triage:write': 'triage',
  'portal:write': 'admin',
  'upstream:write': 'admin',
  'retention:write': 'admin',
};

/** docs/access.md "Scopes": a key with no scopes is unrestricted (kept so older keys keep working). */
export const scopeAllows = (scopes: readonly string[], scope: string): boolean => scopes.length === 0 || scopes.includes(scope);

/** Who asks: the company's plan, and an API key's scopes (none: unrestricted) or a member's role. */
export type Caller = { plan: Plan } & ({ scopes: readonly string[] } | { role: Role } | object);

/**
 * What is asked for: the lowest plan, and a key's scope or a member's access level. The plan is the
 * operation's own when it names one; otherwise `API_PLAN` for an API key (or a bare `{ plan }`
 * caller: "may this company's keys"), and any plan for a member (the dashboard is every plan's).
 */
export type Need = { minPlan?: Plan | undefined; scope?: Scope | undefined; access?: Access | undefined };

export type Refusal = { reason: 'plan'; minPlan: Plan } | { reason: 'scope'; scope: Scope } | { reason: 'role'; access: Access; role: Role };

/**
 * The one answer to "may this caller do this": the plan first (a company below the lowest plan
 * gets nothing of it), then an API key's scope (docs/access.md "Scopes": a key without scopes is
 * unrestricted) or a member's role (src/modules/users/roles.ts). Undefined when allowed. REST,
 * MCP and the dashboard ask it; each words the refusal for its transport.
 */
export function authorize(caller: Caller, need: Need): Refusal | undefined {
  const minPlan = need.minPlan ?? ('role' in caller ? PLANS[0] : API_PLAN);
  if (!planAtLeast(caller.plan, minPlan)) return { reason: 'plan', minPlan };
  if (need.scope !== undefined && 'scopes' in caller && !scopeAllows(caller.scopes, need.scope)) {
    return { reason: 'scope', scope: need.scope };
  }
  if (need.access !== undefined && 'role' in caller && !GRANTS[need.access].includes(caller.role)) {
    return { reason: 'role', access: need.access, role: caller.role };
  }
  return undefined;
}
