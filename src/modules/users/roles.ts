import { type Access, ROLES, type Role, roleMay } from '../../kernel/access.js';
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

export { ACCESS_LEVELS, type Access, roleMay } from '../../kernel/access.js';

export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/** The one refusal for a role that may not: 403 naming the role, for pages, forms and JSON alike. */
export function assertAccess(role: Role, access: Access): void {
  if (!roleMay(role, access)) {
    throw new AppError(ErrorCode.FORBIDDEN, `your role (${ROLE_LABELS[role]}) does not allow this; ask an administrator of your company`);
  }
}
