import type { Db } from '../../src/db/client.js';
import type { Context } from '../../src/kernel/context.js';
import { acceptInvitation } from '../../src/modules/team/accept-invitation.js';
import { inviteMember } from '../../src/modules/team/invitations.js';
import type { Role } from '../../src/modules/users/roles.js';
import { TEST_PASSWORD } from './factories.js';

export const INVITE_ENV = { siteUrl: 'http://localhost:3000', companyName: 'Test company', mail: false };

export const tokenOf = (link: string): string => link.slice(link.lastIndexOf('/') + 1);

/** A member joined through the real invitation verbs (invited by `invitedBy`, accepted at once). */
export async function makeMember(
  db: Db,
  companyId: string,
  invitedBy: string,
  role: Role,
  email = `${role}-${Math.random().toString(36).slice(2, 10)}@example.test`,
) {
  const ctx: Context = { actor: { type: 'user', id: invitedBy } };
  const { link } = await inviteMember(db, ctx, companyId, invitedBy, { email, role }, INVITE_ENV);
  const joined = await acceptInvitation(db, { actor: { type: 'public' } }, tokenOf(link), { password: TEST_PASSWORD });
  return { id: joined.userId, email, role };
}
