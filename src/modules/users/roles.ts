import { authorize, type Need, type Plan, ROLES, type Role } from '../../kernel/access.js';
import { AppError, ErrorCode } from '../../kernel/errors.js';

/**
 * Roles of a company's members and what each may do. One table, read by every surface that a
 * signed-in person uses (dashboard pages and forms, the session JSON endpoints); API keys are
 * governed by their scopes instead.
 *
 * - admin: everything, including settings, API keys, webhooks and the team.
 * - psirt: the vulnerability work: reports, triage, Article 14, advisories, known-vulnerability
 *   decisions, products and evidence. Cannot reach keys, team or settings.
 * - viewer: a compliance officer or auditor: reads every page, changes nothing of the company's.
 */
export { ROLES, type Role } from '../../kernel/access.js';

export const ROLE_LABELS: Record<Role, string> = { admin: 'Administrator', psirt: 'PSIRT member', viewer: 'Viewer' };

export { ACCESS_LEVELS, type Access } from '../../kernel/access.js';

export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/**
 * The one refusal of a member (pages, forms and the session JSON endpoints alike), from
 * `authorize`: 403 naming the role, or the plan the action needs.
 */
export function assertMemberMay(caller: { plan: Plan; role: Role }, need: Need): void {
  const refusal = authorize(caller, need);
  if (refusal?.reason === 'role') {
    throw new AppError(ErrorCode.FORBIDDEN, `your role (${ROLE_LABELS[caller.role]}) does not allow this; ask an administrator of your company`);
  }
  if (refusal?.reason === 'plan') {
    throw new AppError(ErrorCode.FORBIDDEN, `this is available from the ${refusal.minPlan} plan upward; this company is on the ${caller.plan} plan`);
  }
}
