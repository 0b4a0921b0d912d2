import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { siteUrl } from '../../config.js';
import { invitationRefusal } from '../../http/invitation-limits.js';
import { clearSessionCookie } from '../../http/session-auth.js';
import type { Context } from '../../kernel/context.js';
import { type AppError, isAppError } from '../../kernel/errors.js';
import { inviteMember, type InviteEnv, listPendingInvitations, resendInvitation, revokeInvitation } from '../../modules/team/invitations.js';
import { changeMemberRole, listMembers, removeMember } from '../../modules/team/members.js';
import { type InviteFormValues, TEAM_PATH, teamPage } from './team-page.js';
import { textField } from '../form-fields.js';
import { fieldSentences } from '../issue-sentences.js';

type Extra = Omit<Parameters<typeof teamPage>[0], 'session' | 'members' | 'invitations' | 'mailOn'>;

const DONE: Record<string, string> = {
  revoked: 'The invitation was revoked: its link no longer works.',
  role: "The role was changed; that member's sessions were ended.",
  removed: 'The member was removed and signed out everywhere.',
};

const statusOf = (e: AppError): number => (e.code === 'VALIDATION' ? 400 : e.code === 'NOT_FOUND' ? 404 : 409);

/**
 * `/settings/team` (inside the dashboard plugin: sign-in, same-origin, CSRF and the role checked
 * first). Administrators invite, send again, revoke, change roles and remove; viewers see the page.
 */
export function teamDashboardRoutes(app: FastifyInstance, ctxOf: (req: FastifyRequest) => Context): void {
  const { config, database } = app.deps;
  const db = database.db;
  const send = (reply: FastifyReply, body: string, status = 200) => reply.code(status).type('text/html; charset=utf-8').send(body);
  const render = async (req: FastifyRequest, extra: Extra = {}) => {
    const companyId = req.session.company.id;
    const [members, invitations] = await Promise.all([listMembers(db, companyId), listPendingInvitations(db, companyId)]);
    return teamPage({ session: req.session, members, invitations, mailOn: !!config.mail, ...extra });
  };
  const env = (req: FastifyRequest): InviteEnv => ({ siteUrl: siteUrl(config), companyName: req.session.company.name, mail: !!config.mail });
  const refused = async (req: FastifyRequest, reply: FastifyReply, e: unknown, extra: Extra = {}) => {
    if (!isAppError(e) || !['VALIDATION', 'CONFLICT', 'NOT_FOUND'].includes(e.code)) throw e;
    return send(
      reply,
      await render(req, {
        ...extra,
        notice: {
          kind: 'bad',
          text: e.code === 'VALIDATION' ? 'Nothing was changed: please correct the marked fields.' : `Nothing was changed: ${e.message}.`,
        },
      }),
      statusOf(e),
    );
  };
  /**
   * Answers 429 with Retry-After and the page re-rendered (the typed values kept) when the inviter or
   * the company sent too many; true when it answered. (A boolean, not the reply: a reply is thenable.)
   */
  const limited = async (req: FastifyRequest, reply: FastifyReply, extra: Extra = {}): Promise<boolean> => {
    const refusal = await invitationRefusal(app.deps.rateLimiter, req.session.company.id, req.session.user.id);
    if (!refusal) return false;
    const minutes = Math.ceil(refusal.retryAfterSeconds / 60);
    reply.header('retry-after', String(refusal.retryAfterSeconds));
    const text = `Nothing was sent: too many invitations in a short time. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
    send(reply, await render(req, { ...extra, notice: { kind: 'bad', text } }), 429);
    return true;
  };
  /** After a change to oneself the session is gone: back to sign-in, not to a page that would bounce. */
  const after = (req: FastifyRequest, reply: FastifyReply, userId: string, done: string) => {
    if (userId !== req.session.user.id) return reply.redirect(`${TEAM_PATH}?done=${done}`, 303);
    clearSessionCookie(reply, config);
    return reply.redirect('/login', 303);
  };

  app.get(TEAM_PATH, async (req, reply) => {
    const done = (req.query as { done?: string } | undefined)?.done;
    return send(reply, await render(req, { notice: done && DONE[done] ? { kind: 'ok', text: DONE[done] } : undefined }));
  });

  app.post(`${TEAM_PATH}/invitations`, async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values: InviteFormValues = { email: textField(body.email), role: textField(body.role) };
    if (await limited(req, reply, { values })) return reply;
    try {
      const invitation = await inviteMember(db, ctxOf(req), req.session.company.id, req.session.user.id, values, env(req));
      return send(reply, await render(req, { issued: { invitation, resent: false } }), 201);
    } catch (e) {
      const errors = isAppError(e) ? fieldSentences(e.extra.issues ?? [], {}, '') : {};
      if (isAppError(e) && e.code === 'CONFLICT') errors.email = e.message;
      return refused(req, reply, e, { values, errors });
    }
  });

  app.post<{ Params: { id: string } }>(`${TEAM_PATH}/invitations/:id/resend`, async (req, reply) => {
    if (await limited(req, reply)) return reply;
    try {
      const invitation = await resendInvitation(db, ctxOf(req), req.session.company.id, req.params.id, env(req));
      return send(reply, await render(req, { issued: { invitation, resent: true } }));
    } catch (e) {
      return refused(req, reply, e);
    }
  });

  app.post<{ Params: { id: string } }>(`${TEAM_PATH}/invitations/:id/revoke`, async (req, reply) => {
    try {
      await revokeInvitation(db, ctxOf(req), req.session.company.id, req.params.id);
      return reply.redirect(`${TEAM_PATH}?done=revoked`, 303);
    } catch (e) {
      return refused(req, reply, e);
    }
  });

  app.post<{ Params: { id: string } }>(`${TEAM_PATH}/members/:id/role`, async (req, reply) => {
    try {
      const r = await changeMemberRole(db, ctxOf(req), req.session.company.id, req.params.id, {
        role: (req.body as Record<string, unknown> | undefined)?.role,
      });
      return after(req, reply, r.from !== r.to ? r.id : '', 'role');
    } catch (e) {
      return refused(req, reply, e);
    }
  });

  app.post<{ Params: { id: string } }>(`${TEAM_PATH}/members/:id/remove`, async (req, reply) => {
    try {
      const r = await removeMember(db, ctxOf(req), req.session.company.id, req.params.id);
      return after(req, reply, r.id, 'removed');
    } catch (e) {
      return refused(req, reply, e);
    }
  });
}
