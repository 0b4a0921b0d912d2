import { z } from 'zod';
import { ROLE_LABELS, ROLES, type Role } from '../users/roles.js';

/** An invitation link works this long after it is sent (or sent again). */
export const INVITATION_TTL_MS = 7 * 86_400_000;

const RoleField = z.enum(ROLES, { error: `choose a role: ${ROLES.map((r) => ROLE_LABELS[r]).join(', ')}` });

export const InviteInput = z.object({
  email: z.string().trim().pipe(z.email('expected an e-mail address').max(254, 'at most 254 characters')),
  role: RoleField,
});
export type InviteInput = z.input<typeof InviteInput>;

export const ChangeRoleInput = z.object({ role: RoleField });

export type Member = { id: string; email: string; role: Role; createdAt: Date; lastSignInAt: Date | null };

export type InvitationView = { id: string; email: string; role: Role; invitedBy: string | null; createdAt: Date; expiresAt: Date; expired: boolean };

/** An invitation just created or sent again: the link exists only here (and in the queued mail). */
export type IssuedInvitation = { invitation: InvitationView; link: string; mailQueued: boolean };
